package enginefake

import (
	"context"
	"sync"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// LLM is a model that answers every request with Respond after Latency (the engine's context
// cancels the wait). With no Respond it answers "ok". Every request is recorded with the time
// it came. Change Latency and Respond while the engine runs only through Set.
type LLM struct {
	Latency time.Duration
	Respond func(req engine.LLMRequest) (engine.Reply, error)

	mu    sync.Mutex
	reqs  []engine.LLMRequest
	times []time.Time
}

// Complete implements engine.LLM.
func (l *LLM) Complete(ctx context.Context, req engine.LLMRequest) (engine.Reply, error) {
	l.mu.Lock()
	l.reqs = append(l.reqs, req)
	l.times = append(l.times, time.Now())
	lat, respond := l.Latency, l.Respond
	l.mu.Unlock()
	if lat > 0 {
		select {
		case <-time.After(lat):
		case <-ctx.Done():
			return engine.Reply{}, ctx.Err()
		}
	}
	if respond == nil {
		return engine.Reply{Text: "ok"}, nil
	}
	return respond(req)
}

// Set changes the latency and the answer for the requests that come next.
func (l *LLM) Set(lat time.Duration, respond func(engine.LLMRequest) (engine.Reply, error)) {
	l.mu.Lock()
	l.Latency, l.Respond = lat, respond
	l.mu.Unlock()
}

// Requests returns the requests so far.
func (l *LLM) Requests() []engine.LLMRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]engine.LLMRequest(nil), l.reqs...)
}

// Times returns when each request came, in the order of Requests.
func (l *LLM) Times() []time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Time(nil), l.times...)
}
