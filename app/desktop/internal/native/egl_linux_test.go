//go:build linux

package native

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// eglChildEnv marks the test binary run as a child by TestKeepEGLDriversOut*: it prints
// what its libEGL lists, after KeepEGLDriversOut when the value is "keep-out".
const eglChildEnv = "CLANKER_TEST_EGL_CHILD"

func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv(eglChildEnv); ok {
		if mode == "keep-out" {
			if err := KeepEGLDriversOut(); err != nil {
				os.Stdout.WriteString("error: " + err.Error() + "\n")
				os.Exit(2)
			}
		}
		v, set := os.LookupEnv("__EGL_VENDOR_LIBRARY_FILENAMES")
		if set {
			os.Stdout.WriteString("vendor-variable=" + v + "\n")
		}
		// After the call the process's own copy must read as before: C's view of it.
		cv := cGetenv("__EGL_VENDOR_LIBRARY_FILENAMES")
		os.Stdout.WriteString("c-vendor-variable=" + cv + "\n")
		os.Stdout.WriteString("extensions=" + eglClientExtensions() + "\n")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// eglChild runs this test binary as a child in mode, with extra environment, and returns
// its lines by key.
func eglChild(t *testing.T, mode string, extra ...string) map[string]string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), eglChildEnv+"="+mode), extra...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child %s: %v: %s", mode, err, out)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			lines[k] = v
		}
	}
	return lines
}

// A driver's own client extensions (Mesa's platforms: EGL_MESA_platform_gbm,
// EGL_KHR_platform_x11...). libglvnd lists its own without any driver.
func driverExtensions(all string) []string {
	var out []string
	for _, e := range strings.Fields(all) {
		if strings.HasPrefix(e, "EGL_MESA_") || strings.HasPrefix(e, "EGL_KHR_platform_") || strings.HasPrefix(e, "EGL_NV_") {
			out = append(out, e)
		}
	}
	return out
}

// TestKeepEGLDriversOutLoadsNoDriverHereAndLeavesTheVariableAsItWas checks, in child
// processes, that after KeepEGLDriversOut libEGL lists no driver's extensions where it
// otherwise lists Mesa's, and that __EGL_VENDOR_LIBRARY_FILENAMES reads as before the call
// (unset, or the user's own value), which is what the page's process inherits.
func TestKeepEGLDriversOutLoadsNoDriverHereAndLeavesTheVariableAsItWas(t *testing.T) {
	plain := eglChild(t, "plain")
	if len(driverExtensions(plain["extensions"])) == 0 {
		t.Fatalf("without the call libEGL lists no driver extensions (%q): is Mesa's EGL (libegl-mesa0) installed?", plain["extensions"])
	}
	kept := eglChild(t, "keep-out")
	if got := driverExtensions(kept["extensions"]); len(got) > 0 {
		t.Fatalf("after KeepEGLDriversOut libEGL still lists a driver's extensions %v (all: %q)", got, kept["extensions"])
	}
	if v, set := kept["c-vendor-variable"]; !set || v != "" {
		t.Fatalf("the vendor variable reads %q after the call, want it unset as before", v)
	}
	if _, set := kept["vendor-variable"]; set {
		t.Fatalf("the vendor variable is set in Go's view after the call: %q", kept["vendor-variable"])
	}

	// A user's own vendor list is put back as it was.
	const mine = "/usr/share/glvnd/egl_vendor.d/50_mesa.json"
	user := eglChild(t, "keep-out", "__EGL_VENDOR_LIBRARY_FILENAMES="+mine)
	if user["c-vendor-variable"] != mine {
		t.Fatalf("the user's vendor list reads %q after the call, want %q", user["c-vendor-variable"], mine)
	}
}
