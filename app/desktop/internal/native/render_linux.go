//go:build linux

package native

import (
	"log/slog"
	"os"
)

// UseCPURendering sets CPURenderingEnv's variables in this process and, where
// NoEGLDriverWanted, keeps EGL drivers out of it. It must run before GTK opens the display
// and before WebKit starts (before wails.Run); the page's process inherits the variables,
// not the empty driver list.
func UseCPURendering(log *slog.Logger) {
	for _, s := range CPURenderingEnv(os.LookupEnv) {
		if err := os.Setenv(s.Name, s.Value); err != nil {
			log.Warn("could not set a rendering variable; GL may load for nothing", "name", s.Name, "err", err)
			continue
		}
		log.Debug("rendering on the CPU without GL in the window process", "set", s.Name+"="+s.Value, "why", s.Why)
	}
	if !NoEGLDriverWanted(os.LookupEnv) {
		return
	}
	if err := KeepEGLDriversOut(); err != nil {
		log.Debug("EGL drivers may load in the window process", "err", err)
		return
	}
	log.Debug("no EGL driver in the window process; the page's process loads its own")
}
