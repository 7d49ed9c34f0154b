package session

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

func TestPredecessorPIDIsAnotherPositiveProcessID(t *testing.T) {
	for v, want := range map[string]int{"1234": 1234, " 77 ": 77, "": 0, "0": 0, "-5": 0, "x": 0, "99": 0} {
		pid, ok := predecessorPID(v, 99)
		if pid != want || ok != (want != 0) {
			t.Errorf("predecessorPID(%q) = %d, %v; want %d", v, pid, ok, want)
		}
	}
}

// helperEnv makes this test binary, run as a child, stand in for the Clanker being
// replaced: it lives a moment and ends.
const helperEnv = "CLANKER_TEST_PREDECESSOR"

func TestHelperPredecessor(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		return
	}
	time.Sleep(700 * time.Millisecond)
	os.Exit(0)
}

// A Clanker started to take over from one whose browser process died claims the data
// folder only once the old one has ended; otherwise it would find the old one, wake it
// and exit, and nothing would run.
func TestAProcessThatTakesOverWaitsForItsPredecessorToEnd(t *testing.T) {
	old := exec.Command(os.Args[0], "-test.run=^TestHelperPredecessor$")
	old.Env = append(os.Environ(), helperEnv+"=1")
	if err := old.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() { _ = old.Wait(); close(ended) }()
	t.Setenv(PredecessorEnv, strconv.Itoa(old.Process.Pid))

	in, err := AcquireInstance(testDir(t), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	select {
	case <-ended:
	default:
		t.Fatal("the data folder was claimed while the predecessor still ran")
	}
	if _, set := os.LookupEnv(PredecessorEnv); set {
		t.Fatal("the predecessor's id stayed in the environment; processes this one starts would wait for it too")
	}
}
