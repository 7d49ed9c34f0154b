//go:build !testcontrol

package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAReleaseBuildRefusesTheTestControlAndWritesNothing(t *testing.T) {
	file := filepath.Join(t.TempDir(), "control")
	err := (&App{}).startTestControl(file)
	if err == nil || !strings.Contains(err.Error(), "test build") {
		t.Fatalf("startTestControl in a release build = %v, want an error saying it needs a test build", err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the control file exists after a refused start (stat: %v)", err)
	}
}
