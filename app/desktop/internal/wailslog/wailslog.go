// Package wailslog routes Wails' own log lines into slog, so each Wails window of the app
// (the main window and the settings window) logs into the app's one log stream.
package wailslog

import (
	"context"
	"log/slog"
	"os"

	"github.com/wailsapp/wails/v2/pkg/logger"
)

// New returns the logger to put in a Wails options.App's Logger.
func New(l *slog.Logger) logger.Logger { return wailsLogger{l} }

// wailsLogger tags every line with src=wails; Trace goes below Debug.
type wailsLogger struct{ l *slog.Logger }

func (w wailsLogger) Print(m string) { w.l.Info(m, "src", "wails") }
func (w wailsLogger) Trace(m string) {
	w.l.Log(context.Background(), slog.LevelDebug-4, m, "src", "wails")
}
func (w wailsLogger) Debug(m string)   { w.l.Debug(m, "src", "wails") }
func (w wailsLogger) Info(m string)    { w.l.Info(m, "src", "wails") }
func (w wailsLogger) Warning(m string) { w.l.Warn(m, "src", "wails") }
func (w wailsLogger) Error(m string)   { w.l.Error(m, "src", "wails") }

// Fatal logs m and ends the process, as Wails expects of a fatal log line.
func (w wailsLogger) Fatal(m string) {
	w.l.Error(m, "src", "wails", "fatal", true)
	os.Exit(1)
}
