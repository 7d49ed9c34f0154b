package native

// EnvSetting is one environment variable the window process sets for itself before GTK
// and WebKit start.
type EnvSetting struct {
	Name, Value string
	// Why is the reason, for the log.
	Why string
}

// CPURenderingEnv is what keeps OpenGL out of the window process on Linux, together with
// NoEGLDriverWanted.
//
// Clanker's web views never composite on the GPU (hardware acceleration "never"): the page
// is painted on the CPU and handed over in shared memory. Yet by default the window
// process still starts a GL driver twice, for nothing it draws:
//   - GDK opens GLX when it opens the X display, to pick visuals for GL areas there are
//     none of (GDK_GL=disable);
//   - WebKit opens an EGL display before it launches the page's process, to ask it which
//     buffers the DMA-BUF renderer may share (WEBKIT_DISABLE_DMABUF_RENDERER=1 answers
//     that) and which GPU render node the page's process should use (see
//     NoEGLDriverWanted).
//
// getenv reports the environment. A variable the user set is left alone (their setting
// wins).
func CPURenderingEnv(getenv func(string) (string, bool)) []EnvSetting {
	var out []EnvSetting
	add := func(name, value, why string) {
		if _, set := getenv(name); !set {
			out = append(out, EnvSetting{Name: name, Value: value, Why: why})
		}
	}
	add("GDK_GL", "disable", "GDK would open GLX for GL areas the app does not have")
	if dmabufWanted(getenv) {
		// The user asked for the DMA-BUF renderer: WebKit needs its EGL display then.
		return out
	}
	add("WEBKIT_DISABLE_DMABUF_RENDERER", "1", "the page is painted on the CPU; shared memory carries it without EGL")
	return out
}

// NoEGLDriverWanted reports whether the window process should run without any EGL driver
// (KeepEGLDriversOut), which is so unless the user chose WebKit's DMA-BUF renderer.
//
// What is left of WebKit's EGL probe, once DMA-BUF is off, is the question of the GPU's
// render node, whose answer goes to the page's process (for WebGL and video; it paints on
// the CPU and opens EGL itself). With Mesa the probe loads the whole driver and LLVM in the
// window process: about 24 MiB of its PSS (relocated data of its own and its share of the
// library pages; measured under Xvfb).
//
// WEBKIT_WEB_RENDER_DEVICE_FILE answers the question without EGL, but it must not be set:
// WebKitGTK 2.50 starts watching GTK's settings (its SystemSettingsManagerProxy, created
// with its Display object) only on the way to that EGL display, and with the variable set
// nothing else in the app's use of WebKit creates it. The pages then never learn that the
// desktop prefers dark and are drawn light under a dark desktop, while GTK's own widgets
// follow it (measured: TestDarkModeFollowsTheDesktop fails with the variable set to any
// value, and a breakpoint on the watcher's signal connection is never reached). An EGL
// with no driver lets WebKit build its Display, start the watcher and ask, and it hears
// that there is no render node: what the page's process hears on a machine without a GPU.
func NoEGLDriverWanted(getenv func(string) (string, bool)) bool {
	return !dmabufWanted(getenv)
}

// dmabufWanted reports whether the user set WEBKIT_DISABLE_DMABUF_RENDERER=0. WebKit reads
// any other value, the empty one too, as "disabled".
func dmabufWanted(getenv func(string) (string, bool)) bool {
	v, set := getenv("WEBKIT_DISABLE_DMABUF_RENDERER")
	return set && v == "0"
}
