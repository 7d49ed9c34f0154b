package faults

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/images"
	"github.com/clanker-desktop/clanker/app/llm"
	"github.com/clanker-desktop/clanker/app/sqlite"
	"github.com/clanker-desktop/clanker/tests/enginefake"
)

// Options configures a Rig. Endpoint, APIKey and Dir are required.
type Options struct {
	Dir      string // data directory of the SQLite store
	Endpoint string // the fake LLM's base URL
	APIKey   string
	Model    string // default "fake-model"
	UserName string // default "Dana"
	// Relaxed turns on human-like typing; off, a reply is inserted at once.
	Relaxed bool
	// WebSearch turns the web search setting on (for xAI it switches to the Responses API).
	WebSearch bool
	// Timeout bounds each HTTP attempt (zero: the client's default of 60 s).
	Timeout time.Duration
	Seed    uint64
	Logger  *slog.Logger
	// Secrets replaces the OS keychain; nil means "no keychain", so the key is kept in the
	// database file (which is what survives a kill in the crash test).
	Secrets engine.SecretStore
	// BeforeSend, when set, is called with every text just before the fake page counts it as
	// sent; an error keeps it unsent (the crash harness journals here).
	BeforeSend func(conv engine.ConversationID, text string) error
	// Transport, when set, carries the LLM client's HTTP requests (tests wrap it to see every
	// request that leaves the app); nil means a fresh transport without keep-alives.
	Transport http.RoundTripper
	// LLM, when set, answers instead of the real adapter and HTTP client (Endpoint then only
	// goes into the stored settings).
	LLM engine.LLM
}

// Rig is Clanker's real back end (engine, LLM adapter and client, SQLite store) wired the way
// the app wires it, in front of enginefake's page, which records what would be typed and sent. It
// exists so fault, crash and security tests prove behaviour of the real parts rather than of
// test doubles; only the page and the model server are fakes.
type Rig struct {
	Store   *sqlite.Store
	Engine  *engine.Engine
	Page    *enginefake.Page
	Adapter *llm.EngineAdapter

	cancel context.CancelFunc
	done   chan struct{}
}

// noKeychain is a SecretStore without a keychain, as on a machine where none works.
type noKeychain struct{}

var errNoKeychain = errors.New("no keychain in tests")

func (noKeychain) GetSecret() (string, error) { return "", errNoKeychain }
func (noKeychain) SetSecret(string) error     { return errNoKeychain }
func (noKeychain) DeleteSecret() error        { return nil }

// Start opens (or reopens) the store in opts.Dir, saves the connection settings and key when
// they differ from what is stored, builds the engine and runs it until Stop. It must be called
// from the goroutine (or synctest bubble) that will call Stop.
func Start(opts Options) (*Rig, error) {
	if opts.Model == "" {
		opts.Model = "fake-model"
	}
	if opts.UserName == "" {
		opts.UserName = "Dana"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	st, err := sqlite.Open(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	st.Log = log
	st.Secrets = opts.Secrets
	if st.Secrets == nil {
		st.Secrets = noKeychain{}
	}
	ctx := context.Background()
	cur, err := st.Settings(ctx)
	if err != nil {
		st.Close()
		return nil, err
	}
	want := cur
	want.Endpoint, want.Model, want.UserName, want.RelaxedResponsiveness, want.WebSearch = opts.Endpoint, opts.Model, opts.UserName, opts.Relaxed, opts.WebSearch
	want.Normalize()
	if want.Endpoint != cur.Endpoint || want.Model != cur.Model || want.UserName != cur.UserName ||
		want.RelaxedResponsiveness != cur.RelaxedResponsiveness || want.WebSearch != cur.WebSearch {
		if _, err := st.SaveSettings(ctx, want); err != nil {
			st.Close()
			return nil, fmt.Errorf("save settings: %w", err)
		}
	}
	if k, _, err := st.APIKey(ctx); err != nil || k != opts.APIKey {
		if _, err := st.SetAPIKey(ctx, opts.APIKey); err != nil {
			st.Close()
			return nil, fmt.Errorf("save key: %w", err)
		}
	}

	tr := opts.Transport
	if tr == nil {
		tr = &http.Transport{DisableKeepAlives: true}
	}
	hc := &http.Client{Transport: tr}
	adapter := &llm.EngineAdapter{
		// As in the app, every request reads the saved settings and key again.
		Config: func(conv string) (llm.Config, error) {
			s, err := st.Settings(context.Background())
			if err != nil {
				return llm.Config{}, err
			}
			key, _, err := st.APIKey(context.Background())
			if err != nil {
				return llm.Config{}, err
			}
			return llm.Config{Endpoint: s.Endpoint, APIKey: key, Model: s.Model, HTTPClient: hc,
				Timeout: opts.Timeout, Logger: log}, nil
		},
		Memory: st, Usage: st, Budget: st,
		Images: images.NewPreparer(1<<20, st, log), Logger: log,
	}
	es := want
	es.QuietStartHour, es.QuietStopHour = 0, 0 // no quiet hours: tests run at any hour
	page := enginefake.NewPage()
	page.BeforeSend = opts.BeforeSend
	var model engine.LLM = adapter
	if opts.LLM != nil {
		model = opts.LLM
	}
	eng, err := engine.New(engine.Config{Page: page, Store: st.Engine(), LLM: model,
		Rand: rand.New(rand.NewPCG(opts.Seed, 99)), Location: time.UTC, Settings: &es, HasAPIKey: opts.APIKey != "", Logger: log})
	if err != nil {
		st.Close()
		return nil, err
	}
	page.Attach(eng.Send)
	rctx, cancel := context.WithCancel(context.Background())
	r := &Rig{Store: st, Engine: eng, Page: page, Adapter: adapter, cancel: cancel, done: make(chan struct{})}
	go func() { _ = eng.Run(rctx); close(r.done) }()
	return r, nil
}

// Stop ends the engine and closes the store.
func (r *Rig) Stop() {
	r.cancel()
	<-r.done
	r.Store.Close()
}

// Mode returns the conversation's stored mode ("" when it was never stored).
func (r *Rig) Mode(conv string) engine.Mode {
	c, _, err := r.Store.Conversation(context.Background(), conv)
	if err != nil {
		return ""
	}
	return c.Mode
}

// SetMode stores a mode directly, as one switched on (and announced) in an earlier session.
func (r *Rig) SetMode(conv string, m engine.Mode) error {
	return r.Store.Engine().SaveConversation(engine.Conversation{ID: engine.ConversationID(conv), Mode: m, Announced: m})
}
