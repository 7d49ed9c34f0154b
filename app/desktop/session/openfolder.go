package session

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// OpenFolder shows a folder in the desktop's file manager (xdg-open on Linux and the
// BSDs, open on macOS, explorer on Windows). It returns once the opener has started.
func OpenFolder(dir string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("the folder %s does not exist", dir)
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", dir)
	case "windows":
		cmd = exec.Command("explorer", dir)
	default:
		cmd = exec.Command("xdg-open", dir)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("could not open %s in the file manager: %w", dir, err)
	}
	// Reap the opener when it ends; explorer's exit code means nothing.
	go func() { _ = cmd.Wait() }()
	return nil
}
