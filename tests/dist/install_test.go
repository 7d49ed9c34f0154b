package dist

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// privileged returns the command prefix that runs a package-manager command as root: nothing
// when the test already is root, "sudo -n" when passwordless sudo works.
func privileged(t *testing.T) []string {
	t.Helper()
	if os.Geteuid() == 0 {
		return nil
	}
	if _, _, err := command("", nil, "sudo", "-n", "true"); err == nil {
		return []string{"sudo", "-n"}
	}
	t.Fatal("installing the .deb needs root or passwordless sudo; run make dist-test as root or with sudo set up")
	return nil
}

func asRoot(t *testing.T, prefix []string, args ...string) (string, string, error) {
	t.Helper()
	all := append(append([]string{}, prefix...), args...)
	return command("", []string{"DEBIAN_FRONTEND=noninteractive"}, all[0], all[1:]...)
}

// installedVersion reports the installed version of the clanker package, or "" when it is not
// installed.
func installedVersion() string {
	out, _, err := command("", nil, "dpkg-query", "-W", "-f=${db:Status-Status} ${Version}", "clanker")
	if err != nil {
		return ""
	}
	status, version, _ := strings.Cut(strings.TrimSpace(out), " ")
	if status != "installed" {
		return ""
	}
	return version
}

func checkInstallRunRemove(t *testing.T, a artifacts) {
	sudo := privileged(t)

	// Never replace or remove a Clanker someone installed on this machine on purpose.
	if v := installedVersion(); v != "" {
		t.Fatalf("a clanker package (version %s) is already installed; remove it first (apt-get remove clanker), the test will not replace it", v)
	}
	if _, err := os.Stat("/usr/bin/clanker"); err == nil {
		t.Fatal("/usr/bin/clanker already exists but no clanker package is installed; move it away first")
	}

	installed := false
	remove := func() error {
		out, errOut, err := asRoot(t, sudo, "dpkg", "--purge", "clanker")
		if err != nil {
			t.Errorf("dpkg --purge clanker: %v\n%s%s", err, out, errOut)
			return err
		}
		installed = false
		return nil
	}
	t.Cleanup(func() {
		if installed {
			_ = remove()
		}
	})

	// apt-get resolves the dependencies from the packages already on the machine (the test
	// machine has the GTK and WebKitGTK runtimes because it builds Wails apps); the lock
	// timeout rides out another apt run in progress.
	out, errOut, err := asRoot(t, sudo, "apt-get", "install", "-y", "--no-install-recommends",
		"-o", "DPkg::Lock::Timeout=300", a.path(a.deb))
	installed = installedVersion() != ""
	if err != nil {
		t.Fatalf("apt-get install %s: %v\n%s%s", a.deb, err, out, errOut)
	}
	if got := installedVersion(); got != a.debVersion {
		t.Fatalf("after install: expected package version %q, dpkg reports %q", a.debVersion, got)
	}

	bin, err := exec.LookPath("clanker")
	if err != nil || bin != "/usr/bin/clanker" {
		t.Errorf("after install: expected clanker on PATH at /usr/bin/clanker, found %q (err %v)", bin, err)
	}
	stdout, stderr, err := command("", nil, "/usr/bin/clanker", "--version")
	if want := "clanker " + a.version + "\n"; err != nil || stdout != want {
		t.Errorf("/usr/bin/clanker --version: expected %q, got %q (err %v)\n%s", want, stdout, err, stderr)
	}

	desktop, err := os.ReadFile("/usr/share/applications/clanker.desktop")
	if err != nil {
		t.Errorf("after install: the menu entry is missing: %v", err)
	}
	for _, want := range []string{"Name=Clanker", "Exec=clanker", "Icon=clanker", "Type=Application"} {
		if !strings.Contains(string(desktop), want+"\n") {
			t.Errorf("clanker.desktop: expected a %q line, got:\n%s", want, desktop)
		}
	}
	if v, err := exec.LookPath("desktop-file-validate"); err == nil {
		if out, errOut, err := command("", nil, v, "/usr/share/applications/clanker.desktop"); err != nil || strings.TrimSpace(out+errOut) != "" {
			t.Errorf("desktop-file-validate: %v\n%s%s", err, out, errOut)
		}
	}
	for _, s := range hicolorSizes {
		if _, err := os.Stat("/usr/share/icons/hicolor/" + s + "/apps/clanker.png"); err != nil {
			t.Errorf("after install: icon %s missing: %v", s, err)
		}
	}

	if remove() != nil {
		return
	}
	if v := installedVersion(); v != "" {
		t.Errorf("after removal: dpkg still reports clanker %s installed", v)
	}
	for _, p := range []string{"/usr/bin/clanker", "/usr/share/applications/clanker.desktop", "/usr/share/icons/hicolor/48x48/apps/clanker.png"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("after removal: %s is still there", p)
		}
	}
}
