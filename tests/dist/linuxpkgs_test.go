package dist

import (
	"archive/tar"
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/tests/testkit"
)

// The .rpm and the Arch package, read with the distributions' own tools from Debian's
// packages (rpm, rpmkeys and rpm2cpio; pacman), plus Go's readers for what the tools do not
// show: each must carry the same files as the .deb, with the same modes, the very binary the
// .tar.gz holds, and dependencies that name the libraries that binary links.

// linuxFiles are the files every Linux package installs, with their modes.
func linuxFiles() map[string]string {
	want := map[string]string{
		"/usr/bin/clanker":                                     "-rwxr-xr-x",
		"/usr/share/applications/clanker.desktop":              "-rw-r--r--",
		"/usr/lib/clanker/web-extensions/libclanker-webext.so": "-rw-r--r--",
	}
	for _, s := range hicolorSizes {
		want["/usr/share/icons/hicolor/"+s+"/apps/clanker.png"] = "-rw-r--r--"
	}
	return want
}

// packageLicense is the licence build/linux/nfpm.yaml declares, which the packages and the
// manifests must all carry.
func packageLicense(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testkit.RepoRoot(t), "build", "linux", "nfpm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^license: *(.+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("build/linux/nfpm.yaml declares no licence")
	}
	return strings.TrimSpace(string(m[1]))
}

// tarballBinary is the clanker binary inside the .tar.gz, the reference the packages'
// binaries are compared with.
func tarballBinary(t *testing.T, a artifacts) []byte {
	t.Helper()
	out, errOut, err := command("", nil, "tar", "-xzOf", a.path(a.tarball), strings.TrimSuffix(a.tarball, ".tar.gz")+"/clanker")
	if err != nil {
		t.Fatalf("tar: %v\n%s", err, errOut)
	}
	return []byte(out)
}

// linkedLibraries are the shared libraries an ELF binary names as needed.
func linkedLibraries(t *testing.T, bin []byte) []string {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		t.Fatalf("not an ELF binary: %v", err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	return libs
}

// readCpio reads a newc ("070701") cpio archive, as rpm2cpio writes an rpm's payload, into a
// map of path (with a leading "/") to contents, for the regular files.
func readCpio(t *testing.T, r io.Reader) map[string][]byte {
	t.Helper()
	br := bufio.NewReader(r)
	files := map[string][]byte{}
	var read int64
	pad := func(n int64) {
		if rem := n % 4; rem != 0 {
			if _, err := br.Discard(int(4 - rem)); err != nil {
				t.Fatalf("cpio: %v", err)
			}
			read += 4 - rem
		}
	}
	for {
		hdr := make([]byte, 110)
		if _, err := io.ReadFull(br, hdr); err != nil {
			t.Fatalf("cpio header: %v", err)
		}
		read += 110
		if string(hdr[:6]) != "070701" {
			t.Fatalf("cpio: magic %q, want newc 070701", hdr[:6])
		}
		field := func(i int) int64 {
			v, err := strconv.ParseInt(string(hdr[6+8*i:14+8*i]), 16, 64)
			if err != nil {
				t.Fatalf("cpio header field %d: %v", i, err)
			}
			return v
		}
		mode, size, nameSize := field(1), field(6), field(11)
		name := make([]byte, nameSize)
		if _, err := io.ReadFull(br, name); err != nil {
			t.Fatal(err)
		}
		read += nameSize
		pad(read)
		path := strings.TrimRight(string(name), "\x00")
		if path == "TRAILER!!!" {
			return files
		}
		data := make([]byte, size)
		if _, err := io.ReadFull(br, data); err != nil {
			t.Fatal(err)
		}
		read += size
		pad(read)
		if mode&0o170000 == 0o100000 {
			// nfpm writes absolute member names ("/usr/bin/clanker"), rpmbuild "./usr/...".
			files["/"+strings.TrimLeft(strings.TrimPrefix(path, "./"), "/")] = data
		}
	}
}

func checkRpm(t *testing.T, a artifacts) {
	rpmFile := a.path(a.rpm)
	// The header's and payload's digests, as rpm checks them before it installs anything.
	if out := mustRun(t, "", nil, "rpmkeys", "-K", "--nosignature", rpmFile); !strings.Contains(out, "digests OK") {
		t.Errorf("rpmkeys -K: %s", out)
	}
	q := mustRun(t, "", nil, "rpm", "-qp", "--qf",
		"%{NAME}\n%{VERSION}\n%{RELEASE}\n%{ARCH}\n%{OS}\n%{LICENSE}\n%{URL}\n%{PAYLOADCOMPRESSOR}\n", rpmFile)
	got := strings.Split(strings.TrimSuffix(q, "\n"), "\n")
	want := []string{"clanker", a.debVersion, "1", "x86_64", "linux", packageLicense(t), "https://github.com/clanker-desktop/clanker", "zstd"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf(".rpm header (name, version, release, arch, os, license, url, payload compressor):\n got %q\nwant %q", got, want)
	}

	// Dependencies by shared-object name, which every rpm distribution resolves; and they
	// name what the binary really links.
	requires := strings.Split(mustRun(t, "", nil, "rpm", "-qp", "--requires", rpmFile), "\n")
	for _, lib := range []string{"libgtk-3.so.0", "libwebkit2gtk-4.1.so.0"} {
		if !contains(requires, lib+"()(64bit)") {
			t.Errorf(".rpm Requires: want %s()(64bit), got %q", lib, requires)
		}
	}

	// Files and modes, from the header.
	modes := map[string]string{}
	for _, l := range strings.Split(mustRun(t, "", nil, "rpm", "-qp", "--qf", "[%{FILEMODES:perms} %{FILENAMES}\n]", rpmFile), "\n") {
		if perms, path, ok := strings.Cut(l, " "); ok {
			modes[path] = perms
		}
	}
	for path, mode := range linuxFiles() {
		if got, ok := modes[path]; !ok {
			t.Errorf(".rpm: expected %s inside", path)
		} else if got != mode {
			t.Errorf(".rpm: %s has mode %s, expected %s", path, got, mode)
		}
	}

	// The payload itself: the binary is the tarball's, and links the libraries required.
	cmd := exec.Command("rpm2cpio", rpmFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	payload := readCpio(t, out) // reads up to the archive's trailer: the payload is whole
	_, _ = io.Copy(io.Discard, out)
	// rpm2cpio exits 1 on nfpm's packages though it writes the whole payload: it compares
	// the bytes it copied with the header's archive size, which rpmpack (nfpm's rpm writer)
	// fills with the files' total size (google/rpmpack issue 60). rpm itself installs from
	// the header's file list and checks the payload digest, which rpmkeys -K verified above.
	if err := cmd.Wait(); err != nil && (cmd.ProcessState.ExitCode() != 1 || stderr.Len() > 0) {
		t.Fatalf("rpm2cpio: %v\n%s", err, stderr.String())
	}
	bin := payload["/usr/bin/clanker"]
	if !bytes.Equal(bin, tarballBinary(t, a)) {
		t.Errorf(".rpm: /usr/bin/clanker (%d bytes) is not the binary the .tar.gz holds", len(bin))
	}
	libs := linkedLibraries(t, bin)
	for _, lib := range []string{"libgtk-3.so.0", "libwebkit2gtk-4.1.so.0"} {
		if !contains(libs, lib) {
			t.Errorf("the binary does not link %s (it links %q), so the .rpm's dependency on it is wrong", lib, libs)
		}
	}
}

// pacmanInfo reads `pacman -Qip`'s "Key : value" lines.
func pacmanInfo(t *testing.T, pkg string) map[string]string {
	t.Helper()
	info := map[string]string{}
	for _, l := range strings.Split(mustRun(t, "", nil, "pacman", "-Qip", pkg), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(l, " ") {
			info[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return info
}

func checkArch(t *testing.T, a artifacts) {
	pkg := a.path(a.arch)
	info := pacmanInfo(t, pkg)
	for k, want := range map[string]string{
		"Name":         "clanker",
		"Version":      a.archVersion + "-1",
		"Architecture": "x86_64",
		"Licenses":     packageLicense(t),
		"URL":          "https://github.com/clanker-desktop/clanker",
	} {
		if info[k] != want {
			t.Errorf("Arch package %s: %q, want %q", k, info[k], want)
		}
	}
	if deps := strings.Fields(info["Depends On"]); strings.Join(deps, " ") != "gtk3 webkit2gtk-4.1" {
		t.Errorf("Arch package depends on %q, want gtk3 and webkit2gtk-4.1 (Arch's names for the libraries the binary links)", deps)
	}

	// The archive: pacman's metadata files, every file with its mode, and the binary.
	out, errOut, err := command("", nil, "zstd", "-dc", pkg)
	if err != nil {
		t.Fatalf("zstd -dc %s: %v\n%s", a.arch, err, errOut)
	}
	tr := tar.NewReader(strings.NewReader(out))
	modes := map[string]string{}
	var bin []byte
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", a.arch, err)
		}
		path := "/" + strings.TrimPrefix(h.Name, "./")
		modes[path] = fmt.Sprint(h.FileInfo().Mode())
		if path == "/usr/bin/clanker" {
			if bin, err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, meta := range []string{"/.PKGINFO", "/.MTREE"} {
		if _, ok := modes[meta]; !ok {
			t.Errorf("Arch package: no %s (pacman needs it)", meta)
		}
	}
	for path, mode := range linuxFiles() {
		if got, ok := modes[path]; !ok {
			t.Errorf("Arch package: expected %s inside", path)
		} else if got != mode {
			t.Errorf("Arch package: %s has mode %s, expected %s", path, got, mode)
		}
	}
	if !bytes.Equal(bin, tarballBinary(t, a)) {
		t.Errorf("Arch package: /usr/bin/clanker (%d bytes) is not the binary the .tar.gz holds", len(bin))
	}
}
