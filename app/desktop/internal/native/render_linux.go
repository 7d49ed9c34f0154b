//go:build linux

package native

import (
	"log/slog"
	"os"
	"path/filepath"
)

// UseCPURendering sets CPURenderingEnv's variables in this process. It must run before
// GTK opens the display and before WebKit starts (before wails.Run); the page's process
// inherits them.
func UseCPURendering(log *slog.Logger) {
	nodes, _ := filepath.Glob("/dev/dri/renderD*")
	for _, s := range CPURenderingEnv(os.LookupEnv, nodes) {
		if err := os.Setenv(s.Name, s.Value); err != nil {
			log.Warn("could not set a rendering variable; GL may load for nothing", "name", s.Name, "err", err)
			continue
		}
		log.Debug("rendering on the CPU without GL in the window process", "set", s.Name+"="+s.Value, "why", s.Why)
	}
}
