package dist

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/pe"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/clanker-desktop/clanker/tests/testkit"
)

// hicolorSizes are the icon sizes build/icons/gen draws for Linux; the .deb and the .tar.gz
// must carry every one of them.
var hicolorSizes = []string{"16x16", "22x22", "24x24", "32x32", "48x48", "64x64", "128x128", "256x256", "512x512"}

// artifacts names the files one `build/dist.sh windows linux` run must produce for version v.
type artifacts struct {
	dir, version, debVersion, archVersion string
	exe, setup, deb, rpm, arch, tarball   string
}

// newArtifacts names the artifacts of version; archVersion is the version as the Arch
// package carries it (`build/dist.sh arch-version`).
func newArtifacts(dir, version, archVersion string) artifacts {
	// nfpm writes a semver pre-release ("-dev") the Debian way ("~dev"), so that it sorts
	// before the release; rpm reads "~" the same way.
	debVersion := version
	if i := strings.IndexAny(version, "-+"); i >= 0 && version[i] == '-' {
		debVersion = version[:i] + "~" + version[i+1:]
	}
	return artifacts{
		dir: dir, version: version, debVersion: debVersion, archVersion: archVersion,
		exe:     "clanker-" + version + "-windows-amd64.exe",
		setup:   "Clanker-" + version + "-windows-amd64-setup.exe",
		deb:     "clanker_" + debVersion + "_amd64.deb",
		rpm:     "clanker-" + debVersion + "-1.x86_64.rpm",
		arch:    "clanker-" + archVersion + "-1-x86_64.pkg.tar.zst",
		tarball: "clanker-" + version + "-linux-amd64.tar.gz",
	}
}

// all is every artifact, in the order the size lines are logged.
func (a artifacts) all() []string {
	return []string{a.setup, a.exe, a.deb, a.rpm, a.arch, a.tarball}
}

func (a artifacts) path(name string) string { return filepath.Join(a.dir, name) }

// TestReleaseArtifacts builds the Windows installer, the bare .exe, the .deb and the .tar.gz
// exactly as `make dist` does, checks what is inside each, then installs the .deb on this
// machine, runs clanker from /usr/bin and removes the package again.
func TestReleaseArtifacts(t *testing.T) {
	if os.Getenv("CLANKER_DIST_TEST") != "1" {
		t.Skip("builds installers and installs a package: run with CLANKER_DIST_TEST=1 (make dist-test)")
	}
	root := testkit.RepoRoot(t)
	for _, tool := range []string{"bash", "git", "makensis", "7z", "dpkg-deb", "dpkg-query", "rpm", "rpmkeys", "rpm2cpio", "pacman", "zstd", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed for the packaging test: run bash build/install-deps.sh --dist", tool)
		}
	}

	// Derive the version once and hand it to the build, so a commit landing in between
	// cannot make the build and the expectations disagree.
	version := strings.TrimSpace(mustRun(t, root, nil, "bash", "build/dist.sh", "version"))
	archVersion := strings.TrimSpace(mustRun(t, root, nil, "bash", "build/dist.sh", "arch-version", version))
	a := newArtifacts(t.TempDir(), version, archVersion)
	start := time.Now()
	mustRun(t, root, []string{"CLANKER_VERSION=" + version, "CLANKER_DIST_STAGE=" + filepath.Join(t.TempDir(), "stage")},
		"bash", "build/dist.sh", "-o", a.dir, "windows", "linux")
	t.Logf("built version %s in %s", version, time.Since(start).Round(100*time.Millisecond))
	for _, name := range a.all() {
		if fi, err := os.Stat(a.path(name)); err == nil {
			t.Logf("size %-55s %9d bytes (%.1f MB)", name, fi.Size(), float64(fi.Size())/1e6)
		}
	}

	t.Run("the output folder holds exactly the six artifacts, SHA256SUMS and the manifests", func(t *testing.T) {
		checkFileSet(t, a)
	})
	t.Run("SHA256SUMS lists every artifact with its real hash", func(t *testing.T) {
		checkSums(t, a)
	})
	t.Run("the Windows installer carries the app, its uninstaller and the WebView2 bootstrapper", func(t *testing.T) {
		checkInstaller(t, root, a)
	})
	t.Run("the Windows exe is amd64 with Clanker's icon, version resource and stamped version", func(t *testing.T) {
		checkWindowsExe(t, root, a)
	})
	t.Run("the .deb declares its runtime dependencies and ships binary, menu entry and icons", func(t *testing.T) {
		checkDebContents(t, a)
	})
	t.Run("the .tar.gz holds a runnable binary, the menu entry, icons and a README", func(t *testing.T) {
		checkTarball(t, a)
	})
	t.Run("the .rpm's header, digests, dependencies and files", func(t *testing.T) {
		checkRpm(t, a)
	})
	t.Run("the Arch package's metadata, dependencies and files", func(t *testing.T) {
		checkArch(t, a)
	})
	t.Run("the winget and Scoop manifests follow their schemas and name the real files' hashes", func(t *testing.T) {
		download := "https://github.com/clanker-desktop/clanker/releases/download/v" + version
		checkWinget(t, a.dir, version, download)
		checkScoop(t, a.dir, version, download)
		// The cask describes the macOS .dmg, which only the macOS runner builds
		// (.github/workflows/macos.yml): a Linux build leaves it out rather than write a
		// checksum of nothing. TestManifestsFollowTheirSchemas checks the cask's form.
		if _, err := os.Stat(filepath.Join(a.dir, "manifests", "homebrew")); err == nil {
			t.Error("a Homebrew cask was written although no .dmg was built")
		}
	})
	t.Run("the .deb installs, clanker --version runs from /usr/bin, and removal leaves nothing", func(t *testing.T) {
		checkInstallRunRemove(t, a)
	})
}

func checkFileSet(t *testing.T, a artifacts) {
	entries, err := os.ReadDir(a.dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := append(a.all(), "SHA256SUMS", "manifests")
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("output folder:\nexpected %q\ngot      %q", want, got)
	}
}

func checkSums(t *testing.T, a artifacts) {
	data, err := os.ReadFile(a.path("SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := regexp.MustCompile(`^([0-9a-f]{64}) [ *](.+)$`)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			t.Fatalf("SHA256SUMS line %q is not in sha256sum format", sc.Text())
		}
		listed[m[2]] = m[1]
	}
	for _, name := range a.all() {
		want, ok := listed[name]
		if !ok {
			t.Errorf("SHA256SUMS does not list %s", name)
			continue
		}
		f, err := os.ReadFile(a.path(name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(f)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s: SHA256SUMS says %s, the file hashes to %s", name, want, got)
		}
		delete(listed, name)
	}
	if len(listed) > 0 {
		t.Errorf("SHA256SUMS lists files that were not built: %v", listed)
	}
}

// sevenZipPaths lists the paths 7-Zip sees inside an archive (an NSIS installer, or a PE
// file's sections and resources when typ is "PE").
func sevenZipPaths(t *testing.T, file, typ string) []string {
	t.Helper()
	args := []string{"l", "-slt"}
	if typ != "" {
		args = append(args, "-t"+typ)
	}
	out := mustRun(t, "", nil, "7z", append(args, file)...)
	// The listing starts with the archive's own "Path = file" block, separated from the
	// entries by a "----------" line.
	_, entries, ok := strings.Cut(out, "\n----------\n")
	if !ok {
		t.Fatalf("7z listing of %s has no entries section:\n%s", file, out)
	}
	var paths []string
	for _, l := range strings.Split(entries, "\n") {
		if p, ok := strings.CutPrefix(l, "Path = "); ok {
			paths = append(paths, p)
		}
	}
	return paths
}

func sevenZipExtract(t *testing.T, file, typ, entry string) []byte {
	t.Helper()
	args := []string{"e", "-so"}
	if typ != "" {
		args = append(args, "-t"+typ)
	}
	out, errOut, err := command("", nil, "7z", append(args, file, entry)...)
	if err != nil || out == "" {
		t.Fatalf("7z could not extract %s from %s: %v\n%s", entry, file, err, errOut)
	}
	return []byte(out)
}

func checkInstaller(t *testing.T, root string, a artifacts) {
	setup := a.path(a.setup)
	paths := sevenZipPaths(t, setup, "")
	for _, want := range []string{"clanker.exe", "uninstall.exe", "$PLUGINSDIR/webview2bootstrapper/MicrosoftEdgeWebview2Setup.exe"} {
		if !contains(paths, want) {
			t.Errorf("installer: expected %s inside, 7-Zip lists %q", want, paths)
		}
	}

	// The installer installs the very exe that is published beside it.
	inside := sevenZipExtract(t, setup, "", "clanker.exe")
	bare, err := os.ReadFile(a.path(a.exe))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(inside, bare) {
		t.Errorf("installer: clanker.exe inside (%d bytes) differs from %s (%d bytes)", len(inside), a.exe, len(bare))
	}

	// The installer file's own version information (Explorer > Properties > Details).
	info := decodeUTF16(sevenZipExtract(t, setup, "PE", ".rsrc/version.txt"))
	checkVersionInfo(t, "installer", info, a.version)
	if !regexp.MustCompile(`"FileDescription",\s*"Clanker Setup"`).MatchString(info) {
		t.Errorf("installer version info: expected FileDescription \"Clanker Setup\", got:\n%s", info)
	}
	checkIcons(t, root, "installer", setup, sevenZipPaths(t, setup, "PE"))
}

func checkWindowsExe(t *testing.T, root string, a artifacts) {
	exe := a.path(a.exe)
	f, err := pe.Open(exe)
	if err != nil {
		t.Fatalf("%s is not a PE file: %v", a.exe, err)
	}
	machine := f.FileHeader.Machine
	f.Close()
	if machine != pe.IMAGE_FILE_MACHINE_AMD64 {
		t.Errorf("%s: expected an amd64 PE file, machine is %#x", a.exe, machine)
	}

	paths := sevenZipPaths(t, exe, "PE")
	var versionEntry string
	for _, p := range paths {
		if strings.HasSuffix(p, "/version.txt") {
			versionEntry = p
		}
	}
	if versionEntry == "" {
		t.Fatalf("%s has no version resource; 7-Zip lists %q", a.exe, paths)
	}
	checkVersionInfo(t, "exe", decodeUTF16(sevenZipExtract(t, exe, "PE", versionEntry)), a.version)
	checkIcons(t, root, "exe", exe, paths)

	// -X main.version=... put the version into the program itself, which is what
	// `clanker --version` and the About entry print.
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(a.version)) {
		t.Errorf("%s: the version string %q was not linked into the program (ldflags -X main.version)", a.exe, a.version)
	}
}

// checkVersionInfo checks a version resource as 7-Zip prints it: the numeric version is the
// leading X.Y.Z of the version, the ProductVersion string is the whole version.
func checkVersionInfo(t *testing.T, what, info, version string) {
	t.Helper()
	m := regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)`).FindStringSubmatch(version)
	if m == nil {
		t.Fatalf("version %q has no numeric X.Y.Z prefix", version)
	}
	numeric := fmt.Sprintf("%s,%s,%s,0", m[1], m[2], m[3])
	if !regexp.MustCompile(`PRODUCTVERSION\s+` + regexp.QuoteMeta(numeric)).MatchString(info) {
		t.Errorf("%s version info: expected PRODUCTVERSION %s, got:\n%s", what, numeric, info)
	}
	if !regexp.MustCompile(`"ProductVersion",\s*"` + regexp.QuoteMeta(version) + `"`).MatchString(info) {
		t.Errorf("%s version info: expected ProductVersion %q, got:\n%s", what, version, info)
	}
	if !regexp.MustCompile(`"ProductName",\s*"Clanker"`).MatchString(info) {
		t.Errorf("%s version info: expected ProductName \"Clanker\", got:\n%s", what, info)
	}
}

// checkIcons proves the PE file carries Clanker's own icon: every icon image in its resources
// is one of the images in build/windows/icon.ico (drawn by build/icons/gen).
func checkIcons(t *testing.T, root, what, file string, paths []string) {
	t.Helper()
	ico, err := os.ReadFile(filepath.Join(root, "build", "windows", "icon.ico"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range paths {
		if !strings.Contains(p, "/ICON/") || strings.Contains(p, "GROUP_ICON") {
			continue
		}
		n++
		img := sevenZipExtract(t, file, "PE", p)
		if !bytes.Contains(ico, img) {
			t.Errorf("%s: icon resource %s (%d bytes) is not one of build/windows/icon.ico's images", what, p, len(img))
		}
	}
	if n == 0 {
		t.Errorf("%s: no icon resources; 7-Zip lists %q", what, paths)
	}
}

// decodeUTF16 turns 7-Zip's rendering of a version resource (UTF-16LE text) into a string.
func decodeUTF16(b []byte) string {
	if len(b) >= 2 && b[0] == 0xff && b[1] == 0xfe {
		b = b[2:]
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u))
}

func checkDebContents(t *testing.T, a artifacts) {
	deb := a.path(a.deb)
	fields := mustRun(t, "", nil, "dpkg-deb", "--field", deb, "Package", "Version", "Architecture", "Depends")
	for _, want := range []string{"Package: clanker", "Version: " + a.debVersion, "Architecture: amd64"} {
		if !strings.Contains(fields, want+"\n") {
			t.Errorf(".deb control: expected %q, got:\n%s", want, fields)
		}
	}
	var depends string
	for _, l := range strings.Split(fields, "\n") {
		if d, ok := strings.CutPrefix(l, "Depends: "); ok {
			depends = d
		}
	}
	deps := strings.Split(depends, ", ")
	for _, want := range []string{"libgtk-3-0", "libwebkit2gtk-4.1-0"} {
		if !contains(deps, want) {
			t.Errorf(".deb Depends: expected %s, got %q", want, depends)
		}
	}

	// dpkg-deb --contents prints: mode owner/group size date time ./path
	modes := map[string]string{}
	for _, l := range strings.Split(mustRun(t, "", nil, "dpkg-deb", "--contents", deb), "\n") {
		f := strings.Fields(l)
		if len(f) >= 6 {
			modes[strings.TrimPrefix(f[5], ".")] = f[0]
		}
	}
	want := map[string]string{
		"/usr/bin/clanker":                        "-rwxr-xr-x",
		"/usr/share/applications/clanker.desktop": "-rw-r--r--",
		// The page process's web extension, where the app looks from /usr/bin.
		"/usr/lib/clanker/web-extensions/libclanker-webext.so": "-rw-r--r--",
	}
	for _, s := range hicolorSizes {
		want["/usr/share/icons/hicolor/"+s+"/apps/clanker.png"] = "-rw-r--r--"
	}
	for path, mode := range want {
		if got, ok := modes[path]; !ok {
			t.Errorf(".deb: expected %s inside", path)
		} else if got != mode {
			t.Errorf(".deb: %s has mode %s, expected %s", path, got, mode)
		}
	}
}

func checkTarball(t *testing.T, a artifacts) {
	f, err := os.Open(a.path(a.tarball))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s is not gzip: %v", a.tarball, err)
	}
	top := strings.TrimSuffix(a.tarball, ".tar.gz") + "/"
	want := map[string]bool{top + "clanker": true, top + "clanker.desktop": true, top + "README": true,
		top + "web-extensions/libclanker-webext.so": true}
	for _, s := range hicolorSizes {
		want[top+"icons/hicolor/"+s+"/apps/clanker.png"] = true
	}
	bin := filepath.Join(t.TempDir(), "clanker")
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", a.tarball, err)
		}
		if !strings.HasPrefix(h.Name, top) {
			t.Errorf("%s: entry %s is outside the %s folder", a.tarball, h.Name, top)
		}
		delete(want, h.Name)
		if h.Name == top+"clanker" {
			if h.Mode&0o111 == 0 {
				t.Errorf("%s: clanker is not executable (mode %o)", a.tarball, h.Mode)
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(bin, data, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name := range want {
		t.Errorf("%s: expected %s inside", a.tarball, name)
	}
	if _, err := os.Stat(bin); err != nil {
		return
	}
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatalf("the tarball's clanker is not an ELF binary: %v", err)
	}
	if ef.Machine != elf.EM_X86_64 {
		t.Errorf("the tarball's clanker is for %v, expected x86-64", ef.Machine)
	}
	ef.Close()
	out, errOut, err := command("", nil, bin, "--version")
	if want := "clanker " + a.version + "\n"; err != nil || out != want {
		t.Errorf("the tarball's clanker --version: expected %q, got %q (err %v)\n%s", want, out, err, errOut)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
