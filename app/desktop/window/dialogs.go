package window

import (
	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// The native dialogs of the main window: yes/no questions, text, About.

// confirmDialog asks a yes/no question in a native dialog of the main window.
func (s *Shell) confirmDialog(title, message string) bool {
	ctx, err := s.wailsCtx()
	if err != nil {
		return false
	}
	answer, err := runtime.MessageDialog(ctx, runtime.MessageDialogOptions{
		Type:          runtime.QuestionDialog,
		Title:         title,
		Message:       message,
		Buttons:       []string{"Yes", "No"},
		DefaultButton: "No",
		CancelButton:  "No",
	})
	return err == nil && answer == "Yes"
}

// textDialog shows text in a native message dialog: readable, but not copyable. The app
// should supply MenuOptions.ShowText (the settings process's diagnostics view) instead.
func (s *Shell) textDialog(title, body string) {
	ctx, err := s.wailsCtx()
	if err != nil {
		return
	}
	_, _ = runtime.MessageDialog(ctx, runtime.MessageDialogOptions{
		Type:    runtime.InfoDialog,
		Title:   title,
		Message: engine.Clip(body, 4000),
	})
}

// aboutDialog shows the version in a native message dialog.
func (s *Shell) aboutDialog() {
	ctx, err := s.wailsCtx()
	if err != nil {
		return
	}
	_, _ = runtime.MessageDialog(ctx, runtime.MessageDialogOptions{
		Type:    runtime.InfoDialog,
		Title:   "About Clanker",
		Message: menus.AboutText(s.opts.Version),
	})
}
