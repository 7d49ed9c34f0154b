package crash

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/sqlite"
	"github.com/clanker-desktop/clanker/tests/enginefake"
	"github.com/clanker-desktop/clanker/tests/faults"
	_ "modernc.org/sqlite" // the driver, for the test's own integrity check
)

// The replier runs in a child process: this test binary re-executed with helperEnv set, so the
// engine can run inside a synctest bubble there (its reading and typing delays pass in fake
// time, and a hundred reply cycles take well under a second) while the store and the journal do
// real, fsynced file I/O that a SIGKILL can interrupt anywhere.
const (
	helperEnv = "CLANKER_CRASH_REPLIER_DIR"
	cycles    = 100
	endpoint  = "http://127.0.0.1:9/v1" // stored in the settings; never contacted
	apiKey    = "sk-crash-0123456789abcdef"
	userName  = "Dana"
)

// journal is the page's durable record of the conversation: "in <id>" for each message the
// driver delivered and "out <text>" for each text sent (appended and fsynced just before the
// page counts it as sent). A line without its newline was cut by a kill and never happened.
type journal struct {
	mu sync.Mutex
	f  *os.File
}

type entry struct {
	kind string // "in", "out" or "set"
	text string // message id for "in", the sent text for "out", the cycle for "set"
}

func (e entry) isIn() bool { return e.kind == "in" }

func readJournal(path string) ([]entry, int64, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	complete := bytes.LastIndexByte(b, '\n') + 1
	var out []entry
	sc := bufio.NewScanner(bytes.NewReader(b[:complete]))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		kind, rest, _ := strings.Cut(sc.Text(), " ")
		out = append(out, entry{kind: kind, text: strings.ReplaceAll(rest, `\n`, "\n")})
	}
	return out, int64(complete), sc.Err()
}

func openJournal(path string, complete int64) (*journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	// Drop a torn last line, so appends start on a line of their own.
	if err := f.Truncate(complete); err != nil {
		return nil, err
	}
	if _, err := f.Seek(complete, 0); err != nil {
		return nil, err
	}
	return &journal{f: f}, nil
}

func (j *journal) append(kind, text string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := fmt.Fprintf(j.f, "%s %s\n", kind, strings.ReplaceAll(text, "\n", `\n`)); err != nil {
		return err
	}
	return j.f.Sync()
}

// answerNewest is the model's answer: it names the newest incoming message's id, so the
// journal shows which message each reply belongs to.
func answerNewest(req engine.LLMRequest) (engine.Reply, error) {
	for i := len(req.History) - 1; i >= 0; i-- {
		if m := req.History[i]; m.Direction == engine.Incoming {
			return engine.Reply{Text: "answer to " + m.ID}, nil
		}
	}
	return engine.Reply{}, nil
}

// TestReplierProcess is not a test of its own: it is the child process the crash test starts
// and kills (the os/exec helper-process pattern). Without helperEnv it returns at once.
func TestReplierProcess(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		return
	}
	synctest.Test(t, func(t *testing.T) {
		if err := runReplier(dir); err != nil {
			fmt.Fprintln(os.Stderr, "replier:", err)
			os.Exit(3)
		}
	})
	fmt.Println("REPLIER DONE")
	os.Exit(0)
}

// runReplier resumes the conversation from the journal and drives the remaining cycles: each
// delivers one message addressing Clanker in an Active conversation and lets two minutes of fake
// time pass, in which the engine answers.
func runReplier(dir string) error {
	jpath := filepath.Join(dir, "journal")
	past, complete, err := readJournal(jpath)
	if err != nil {
		return err
	}
	j, err := openJournal(jpath, complete)
	if err != nil {
		return err
	}
	defer j.f.Close()
	first := len(past) == 0

	r, err := faults.Start(faults.Options{Dir: filepath.Join(dir, "data"), Endpoint: endpoint, APIKey: apiKey,
		UserName: userName, LLM: &enginefake.LLM{Respond: answerNewest}, Seed: uint64(len(past)),
		BeforeSend: func(_ engine.ConversationID, text string) error { return j.append("out", text) }})
	if err != nil {
		return err
	}
	defer r.Stop()
	if first {
		for conv, m := range map[string]engine.Mode{"c1": engine.ModeActive, "c2": engine.ModeAvailable, "c3": engine.ModeDeactivated} {
			if err := r.SetMode(conv, m); err != nil {
				return err
			}
		}
	}
	// What the settings window saved before the kill must be there: the last acknowledged
	// write, or the one that was in flight, never an older value or a torn one.
	acked := 0
	for _, e := range past {
		if e.kind == "set" {
			acked, _ = strconv.Atoi(e.text)
		}
	}
	if err := checkAcked(r, acked); err != nil {
		return err
	}

	// The page shows the newest 35 messages of c1, as the real one keeps a window.
	var hist []engine.Message
	delivered := 0
	for i, e := range past {
		if e.kind == "set" {
			continue
		}
		if e.isIn() {
			delivered++
			hist = append(hist, engine.Message{ID: e.text, Sender: "Ann", Direction: engine.Incoming, Text: "clanker, question " + e.text + "?"})
		} else {
			hist = append(hist, engine.Message{ID: fmt.Sprintf("out%d", i), Sender: "You", Direction: engine.Outgoing, Text: e.text})
		}
	}
	hist = hist[max(0, len(hist)-35):]
	send := func(ev engine.Event) error {
		if err := r.Engine.Send(ev); err != nil {
			return err
		}
		synctest.Wait()
		return nil
	}
	r.Page.Show("c1")
	for _, ev := range []engine.Event{engine.PageStateChanged{State: engine.PageReady}, engine.ConversationChanging{To: "c1"},
		engine.ConversationOpened{ID: "c1", Participants: []engine.Participant{{Name: "Ann"}}, Messages: hist}} {
		if err := send(ev); err != nil {
			return err
		}
	}
	time.Sleep(2 * time.Minute)
	synctest.Wait()
	for i := delivered + 1; i <= cycles; i++ {
		id := "m" + strconv.Itoa(i)
		// The settings window's part of the cycle: save a setting and a mode, then note that
		// the save was acknowledged.
		st, err := r.Store.Settings(context.Background())
		if err != nil {
			return err
		}
		st.HistorySize = historyAt(i)
		if _, err := r.Store.SaveSettings(context.Background(), st); err != nil {
			return err
		}
		if err := r.SetMode("c2", modeAt(i)); err != nil {
			return err
		}
		if err := j.append("set", strconv.Itoa(i)); err != nil {
			return err
		}
		if err := j.append("in", id); err != nil {
			return err
		}
		fmt.Printf("cycle %d\n", i)
		if err := send(engine.MessageAdded{Conversation: "c1", Message: engine.Message{ID: id, Sender: "Ann",
			Direction: engine.Incoming, Text: "clanker, question " + id + "?"}}); err != nil {
			return err
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
	}
	return nil
}

// historyAt and modeAt are the values the settings window saves in cycle i.
func historyAt(i int) int { return 10 + i%490 }

func modeAt(i int) engine.Mode {
	if i%2 == 0 {
		return engine.ModeAvailable
	}
	return engine.ModeActive
}

// checkAcked compares the stored history size and c2's mode with the last acknowledged save
// (cycle acked) and the one after it, which may have been committed just before the kill.
func checkAcked(r *faults.Rig, acked int) error {
	st, err := r.Store.Settings(context.Background())
	if err != nil {
		return err
	}
	okHistory := st.HistorySize == historyAt(acked+1) || (acked > 0 && st.HistorySize == historyAt(acked)) ||
		(acked == 0 && st.HistorySize == engine.DefaultHistorySize)
	if !okHistory {
		return fmt.Errorf("LOST SETTING: history size %d after the kill; the last acknowledged save (cycle %d) wrote %d", st.HistorySize, acked, historyAt(acked))
	}
	m := r.Mode("c2")
	if m != modeAt(acked+1) && !(acked > 0 && m == modeAt(acked)) && !(acked == 0 && m == engine.ModeAvailable) {
		return fmt.Errorf("LOST MODE: c2 is %q after the kill; the last acknowledged save (cycle %d) wrote %q", m, acked, modeAt(acked))
	}
	return nil
}

// TestKillNineDuringReplyCyclesNeverDuplicatesAReplyNorLosesSettingsOrModes starts the replier,
// kills it with SIGKILL after a seeded random delay, restarts it on the same data directory, and
// repeats until it completes its hundred cycles. Afterwards the database passes its integrity
// check, the settings, key and modes are what was saved, and no message was answered twice (a
// reply may be lost to a kill, never sent again).
func TestKillNineDuringReplyCyclesNeverDuplicatesAReplyNorLosesSettingsOrModes(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CRASH_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (rerun with CRASH_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 1))

	// run starts the replier and, unless kill is nil, kills it when kill says so: kill gets each
	// cycle number the replier reports (0 at start) and returns how long to wait before the
	// SIGKILL, or a negative duration to keep going.
	run := func(kill func(cycle int) time.Duration) (finished bool) {
		cmd := exec.Command(exe, "-test.run=^TestReplierProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"="+dir)
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		timer := time.AfterFunc(2*time.Minute, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
		defer timer.Stop()
		armed := false
		arm := func(d time.Duration) {
			if d >= 0 && !armed {
				armed = true
				time.AfterFunc(d, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
			}
		}
		if kill != nil {
			arm(kill(0))
		}
		var out strings.Builder
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			out.WriteString(line + "\n")
			if n, ok := strings.CutPrefix(line, "cycle "); ok && kill != nil {
				c, _ := strconv.Atoi(n)
				arm(kill(c))
			}
		}
		werr := cmd.Wait()
		if werr == nil {
			if !strings.Contains(out.String(), "REPLIER DONE") {
				t.Fatalf("the replier exited cleanly without finishing; output:\n%s%s", out.String(), errOut.String())
			}
			return true
		}
		var ee *exec.ExitError
		if errors.As(werr, &ee) && ee.Sys().(syscall.WaitStatus).Signaled() && armed {
			return false
		}
		t.Fatalf("the replier failed on its own (%v); output:\n%s%s", werr, out.String(), errOut.String())
		return false
	}

	// Kill points: one run in five dies during start-up or recovery (before its first cycle, as
	// long as the last start-up took); the others die 1-5 cycles after they resume, 0-3 ms into
	// the cycle, which lands in the store's writes, the journal's fsync or the engine's work.
	start := time.Now()
	kills, early := 0, 0
	startup := 50 * time.Millisecond
	for time.Since(start) < 40*time.Second && kills < 150 {
		isEarly := rng.IntN(5) == 0
		first, wait := -1, 0
		began := time.Now()
		finished := run(func(c int) time.Duration {
			switch {
			case c == 0 && isEarly:
				return time.Duration(rng.Int64N(int64(startup)))
			case c == 0 || isEarly:
				return -1
			case first < 0:
				startup = time.Since(began)
				first, wait = c, 1+rng.IntN(5)
			}
			if c >= first+wait-1 {
				return time.Duration(rng.Int64N(int64(3 * time.Millisecond)))
			}
			return -1
		})
		if finished {
			break
		}
		kills++
		if isEarly {
			early++
		}
	}
	if !run(nil) {
		t.Fatal("the final run did not finish")
	}
	t.Logf("%d SIGKILLs (%d during start-up) before the replier completed its %d cycles, in %v", kills, early, cycles, time.Since(start).Round(time.Millisecond))
	if kills < 10 {
		t.Errorf("want at least 10 kills to make the test meaningful, got %d", kills)
	}
	verify(t, dir)
}

func verify(t *testing.T, dir string) {
	t.Helper()
	entries, _, err := readJournal(filepath.Join(dir, "journal"))
	if err != nil {
		t.Fatal(err)
	}
	answered := map[string]int{}
	ins, outs := 0, 0
	for _, e := range entries {
		if e.kind == "set" {
			continue
		}
		if e.isIn() {
			ins++
			continue
		}
		outs++
		if !strings.HasPrefix(e.text, engine.Prefix+"answer to m") {
			t.Errorf("sent text %q is not a prefixed answer", e.text)
			continue
		}
		answered[strings.TrimPrefix(e.text, engine.Prefix+"answer to ")]++
	}
	for id, n := range answered {
		if n > 1 {
			t.Errorf("message %s was answered %d times; a reply may be lost to a crash, never duplicated", id, n)
		}
	}
	t.Logf("%d messages delivered, %d answered, %d replies lost to kills", ins, outs, ins-len(answered))
	if ins < cycles {
		t.Errorf("want all %d messages delivered by the end, got %d", cycles, ins)
	}
	if len(answered) < cycles/2 {
		t.Errorf("want most messages answered, got %d of %d", len(answered), ins)
	}

	dbPath := filepath.Join(dir, "data", sqlite.FileName)
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	var check string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("PRAGMA integrity_check = %q (%v), want ok", check, err)
	}
	db.Close()

	st, err := sqlite.Open(filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if rec := st.Recovery(); rec != nil {
		t.Errorf("the store had to recover a damaged database: %s", rec.Message())
	}
	ctx := context.Background()
	s, err := st.Settings(ctx)
	if err != nil || s.Endpoint != endpoint || s.Model != "fake-model" || s.UserName != userName || s.HistorySize != historyAt(cycles) {
		t.Errorf("settings after the kills = endpoint %q model %q user %q history %d (%v), want %q fake-model %q %d",
			s.Endpoint, s.Model, s.UserName, s.HistorySize, err, endpoint, userName, historyAt(cycles))
	}
	st.Secrets = nil
	if k, _, err := st.APIKey(ctx); err != nil || k != apiKey {
		t.Errorf("API key after the kills: %v (length %d), want the saved key", err, len(k))
	}
	for conv, want := range map[string]engine.Mode{"c1": engine.ModeActive, "c2": modeAt(cycles), "c3": engine.ModeDeactivated} {
		c, _, err := st.Conversation(ctx, conv)
		if err != nil || c.Mode != want {
			t.Errorf("mode of %s after the kills = %q (%v), want %q", conv, c.Mode, err, want)
		}
	}
}
