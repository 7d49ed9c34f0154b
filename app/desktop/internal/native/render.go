package native

import "sort"

// EnvSetting is one environment variable the window process sets for itself before GTK
// and WebKit start.
type EnvSetting struct {
	Name, Value string
	// Why is the reason, for the log.
	Why string
}

// CPURenderingEnv is what keeps OpenGL out of the window process on Linux.
//
// Clanker's web views never composite on the GPU (hardware acceleration "never"): the page
// is painted on the CPU and handed over in shared memory. Yet by default the window
// process still starts a GL driver twice, for nothing it draws:
//   - GDK opens GLX when it opens the X display, to pick visuals for GL areas there are
//     none of (GDK_GL=disable);
//   - WebKit opens an EGL display before it launches the page's process, to ask it which
//     buffers the DMA-BUF renderer may share (WEBKIT_DISABLE_DMABUF_RENDERER=1 answers
//     that) and the GPU's render node, which it passes on to the page's process
//     (WEBKIT_WEB_RENDER_DEVICE_FILE answers that without EGL: the lowest-numbered node,
//     the one EGL names on a one-GPU machine; the page's process uses it only for WebGL
//     and video, as it paints on the CPU).
//
// With Mesa the GLX probe alone costs about 4.5 MiB, and the EGL probe loads the whole
// driver and LLVM: 26 MiB more in the window process (relocated data of its own, and its
// share of the library pages), about 18 MiB more in all, since the page's process, which
// needs EGL, then holds the whole of the shared pages (measured with PSS under Xvfb).
// The DMA-BUF renderer is also the part of WebKitGTK known for blank windows on some GPU
// drivers, and the tests run without it, so the app now runs the way it is tested.
//
// getenv reports the environment; renderNodes lists /dev/dri/renderD*. Without a render
// node (a VM, a remote session) the device variable is not set: EGL then reports none
// to the page's process, and a made-up path would not be the same answer. A variable the
// user set is left alone (their setting wins), and so is WEBKIT_WEB_RENDER_DEVICE_FILE
// when the user chose the DMA-BUF renderer.
func CPURenderingEnv(getenv func(string) (string, bool), renderNodes []string) []EnvSetting {
	var out []EnvSetting
	add := func(name, value, why string) {
		if _, set := getenv(name); !set {
			out = append(out, EnvSetting{Name: name, Value: value, Why: why})
		}
	}
	add("GDK_GL", "disable", "GDK would open GLX for GL areas the app does not have")
	if v, set := getenv("WEBKIT_DISABLE_DMABUF_RENDERER"); set && v == "0" {
		// The user asked for the DMA-BUF renderer: WebKit needs its EGL display then.
		return out
	}
	add("WEBKIT_DISABLE_DMABUF_RENDERER", "1", "the page is painted on the CPU; shared memory carries it without EGL")
	if len(renderNodes) > 0 {
		nodes := append([]string(nil), renderNodes...)
		sort.Strings(nodes)
		add("WEBKIT_WEB_RENDER_DEVICE_FILE", nodes[0], "names the GPU's render node so WebKit does not open EGL to ask for it")
	}
	return out
}
