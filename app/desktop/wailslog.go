package desktop

import (
	"context"
	"log/slog"
	"os"
)

// wailsLogger routes Wails' own log lines into slog so the app has one log stream.
type wailsLogger struct{ l *slog.Logger }

func (w wailsLogger) Print(m string) { w.l.Info(m, "src", "wails") }
func (w wailsLogger) Trace(m string) {
	w.l.Log(context.Background(), slog.LevelDebug-4, m, "src", "wails")
}
func (w wailsLogger) Debug(m string)   { w.l.Debug(m, "src", "wails") }
func (w wailsLogger) Info(m string)    { w.l.Info(m, "src", "wails") }
func (w wailsLogger) Warning(m string) { w.l.Warn(m, "src", "wails") }
func (w wailsLogger) Error(m string)   { w.l.Error(m, "src", "wails") }
func (w wailsLogger) Fatal(m string) {
	w.l.Error(m, "src", "wails", "fatal", true)
	os.Exit(1)
}
