package dist

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// command runs name with args in dir, with extra environment entries, and returns stdout and
// stderr separately so callers can compare stdout exactly and still report stderr.
func command(dir string, env []string, name string, args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// mustRun is command for steps whose failure ends the test.
func mustRun(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, errOut, err := command(dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// withoutEnv returns the process environment minus the named variables, for commands whose
// result must not depend on what the caller happened to export.
func withoutEnv(names ...string) []string {
	var env []string
outer:
	for _, kv := range os.Environ() {
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				continue outer
			}
		}
		env = append(env, kv)
	}
	return env
}
