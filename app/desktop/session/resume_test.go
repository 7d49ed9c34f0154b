//go:build linux

package session

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// privateBus starts a dbus-daemon of our own (never the machine's buses) and returns its
// address.
func privateBus(t *testing.T) string {
	t.Helper()
	conf := filepath.Join(t.TempDir(), "bus.conf")
	if err := os.WriteFile(conf, []byte(`<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:tmpdir=`+t.TempDir()+`</listen>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>`), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("dbus-daemon", "--config-file="+conf, "--fork", "--print-address=1", "--print-pid=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dbus-daemon (installed by make deps): %v", err)
	}
	r := bufio.NewReader(out)
	addr, _ := r.ReadString('\n')
	pidLine, _ := r.ReadString('\n')
	_ = cmd.Wait()
	if pid, err := strconv.Atoi(strings.TrimSpace(pidLine)); err == nil {
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGTERM) })
	}
	addr = strings.TrimSpace(addr)
	if addr == "" {
		t.Fatal("dbus-daemon printed no address")
	}
	return addr
}

func dial(t *testing.T, addr string) *dbus.Conn {
	t.Helper()
	c, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connect to the private bus: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestResumeFromSleepReloadsOnlyWhenTheMachineWakes(t *testing.T) {
	addr := privateBus(t)
	watcher, logind := dial(t, addr), dial(t, addr)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resumed, suspended := make(chan struct{}, 4), make(chan struct{}, 4)
	done := make(chan error, 1)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	go func() {
		done <- watchResume(ctx, watcher, func() { suspended <- struct{}{} }, func() { resumed <- struct{}{} }, log)
	}()

	emit := func(path string, sleeping bool) {
		if err := logind.Emit(dbus.ObjectPath(path), login1Interface+"."+prepareForSleep, sleeping); err != nil {
			t.Fatalf("emit PrepareForSleep(%v): %v", sleeping, err)
		}
	}
	// The match rule reaches the bus asynchronously: announce the wake-up until the watcher
	// hears one. After that every signal is delivered, so the negative checks below mean
	// something.
	deadline := time.After(20 * time.Second)
	for got := false; !got; {
		emit(login1Path, false)
		select {
		case <-resumed:
			got = true
		case <-time.After(250 * time.Millisecond):
		case <-deadline:
			t.Fatal("waking up (PrepareForSleep false) never triggered a reload")
		}
	}
	for len(resumed) > 0 { // extra wake-ups from the retry loop
		<-resumed
	}
	emit(login1Path, true)            // going to sleep
	emit("/org/example/other", false) // another object's signal of the same name
	emit(login1Path, false)           // a real wake-up, as a marker that the others were read
	select {
	case <-resumed:
	case <-time.After(10 * time.Second):
		t.Fatal("the marker wake-up did not trigger a reload")
	}
	select {
	case <-resumed:
		t.Fatal("going to sleep, or another object's signal, triggered a reload")
	case <-time.After(300 * time.Millisecond):
	}
	if len(suspended) != 1 {
		t.Fatalf("going to sleep was reported %d times, want once", len(suspended))
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("watcher ended with %v, want nil after cancel", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("watcher did not stop when its context ended")
	}
}
