package enginefake

import (
	"context"
	"errors"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Store keeps in memory what the SQLite store keeps on disk for the engine (engine.Store) and
// for the LLM adapter (engine.MemoryStore, engine.UsageRecorder), with the same promises where
// the engine can tell: SaveConversation leaves the leftover text and the conversation's model
// alone, DeactivateAll changes only what is not Deactivated already, context updates apply as
// the store applies them, and message ids keep the conversation they were first recorded in.
//
// The exported fields are its contents and failure switches. A test changes or reads them while
// the engine runs only with the store locked (Lock, Unlock); the methods lock by themselves.
type Store struct {
	sync.Mutex

	Recs map[engine.ConversationID]engine.Conversation
	// Updates are the context updates applied, per conversation, in order.
	Updates map[engine.ConversationID][]engine.ContextUpdate
	// Seen is when each conversation was last marked seen.
	Seen map[engine.ConversationID]time.Time
	// Owners maps each recorded message id to the conversation it was first recorded in.
	Owners map[string]engine.ConversationID
	// Memories are the conversations' stored memory, as ApplyContext leaves it.
	Memories map[engine.ConversationID]engine.Memory
	// Forgets counts ForgetUnseen calls.
	Forgets int

	// FailSave makes SaveConversation fail (a full disk).
	FailSave bool
	// FailLoadMemory, when set, is LoadMemory's error.
	FailLoadMemory error
	// Blind makes MessageOwners find nothing: the store forgot which ids it has seen.
	Blind bool

	usage []engine.Usage
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{Recs: map[engine.ConversationID]engine.Conversation{}, Updates: map[engine.ConversationID][]engine.ContextUpdate{},
		Seen: map[engine.ConversationID]time.Time{}, Owners: map[string]engine.ConversationID{}, Memories: map[engine.ConversationID]engine.Memory{}}
}

// errDiskFull is SaveConversation's error while FailSave is set.
var errDiskFull = errors.New("disk full")

// deactivated reports whether m leaves Clanker out: anything but Available and Active (the
// zero value included) counts as Deactivated, as the engine reads a stored mode.
func deactivated(m engine.Mode) bool { return m != engine.ModeAvailable && m != engine.ModeActive }

// LoadConversation implements engine.Store.
func (s *Store) LoadConversation(id engine.ConversationID) (engine.Conversation, bool, error) {
	s.Lock()
	defer s.Unlock()
	r, ok := s.Recs[id]
	return r, ok, nil
}

// SaveConversation implements engine.Store.
func (s *Store) SaveConversation(r engine.Conversation) error {
	s.Lock()
	defer s.Unlock()
	if s.FailSave {
		return errDiskFull
	}
	r.Leftover = s.Recs[r.ID].Leftover           // like the real store: SaveConversation leaves it alone
	r.ModelOverride = s.Recs[r.ID].ModelOverride // and the model the settings window chose
	s.Recs[r.ID] = r
	return nil
}

// SaveLeftover implements engine.Store.
func (s *Store) SaveLeftover(id engine.ConversationID, text string) error {
	s.Lock()
	defer s.Unlock()
	r, ok := s.Recs[id]
	if !ok && text == "" {
		return nil
	}
	if !ok {
		r = engine.Conversation{ID: id, Mode: engine.ModeDeactivated}
	}
	r.Leftover = text
	s.Recs[id] = r
	return nil
}

// ApplyContext implements engine.Store: it records the update and applies it to the
// conversation's memory.
func (s *Store) ApplyContext(id engine.ConversationID, u engine.ContextUpdate) error {
	s.Lock()
	defer s.Unlock()
	s.Updates[id] = append(s.Updates[id], u)
	mem := s.Memories[id]
	if u.Summary != nil && *u.Summary != "" {
		mem.Summary = *u.Summary
	}
	if u.CustomizationSet {
		mem.Customization = ""
		if u.Customization != nil {
			mem.Customization = *u.Customization
		}
	}
	if u.ProfilesSet {
		mem.Profiles = maps.Clone(u.Profiles)
	}
	s.Memories[id] = mem
	return nil
}

// DeactivateAll implements engine.Store.
func (s *Store) DeactivateAll() (int, error) {
	s.Lock()
	defer s.Unlock()
	n := 0
	for id, r := range s.Recs {
		if !deactivated(r.Mode) || !deactivated(r.Announced) {
			r.Mode, r.Announced = engine.ModeDeactivated, engine.ModeDeactivated
			s.Recs[id] = r
			n++
		}
	}
	return n, nil
}

// MarkSeen implements engine.Store.
func (s *Store) MarkSeen(ids []engine.ConversationID, t time.Time) error {
	s.Lock()
	defer s.Unlock()
	for _, id := range ids {
		s.Seen[id] = t
	}
	return nil
}

// ForgetUnseen implements engine.Store.
func (s *Store) ForgetUnseen(before time.Time) (int, error) {
	s.Lock()
	defer s.Unlock()
	s.Forgets++
	n := 0
	for id, t := range s.Seen {
		if t.Before(before) {
			delete(s.Recs, id)
			delete(s.Seen, id)
			n++
		}
	}
	return n, nil
}

// RecordMessages implements engine.Store; pending (tmp_) ids are not kept.
func (s *Store) RecordMessages(id engine.ConversationID, ids []string) error {
	s.Lock()
	defer s.Unlock()
	for _, m := range ids {
		if _, ok := s.Owners[m]; !ok && !strings.HasPrefix(m, "tmp_") {
			s.Owners[m] = id
		}
	}
	return nil
}

// MessageOwners implements engine.Store.
func (s *Store) MessageOwners(ids []string) (map[string]engine.ConversationID, error) {
	s.Lock()
	defer s.Unlock()
	out := map[string]engine.ConversationID{}
	if s.Blind {
		return out, nil
	}
	for _, m := range ids {
		if c, ok := s.Owners[m]; ok {
			out[m] = c
		}
	}
	return out, nil
}

// LoadMemory implements engine.MemoryStore.
func (s *Store) LoadMemory(_ context.Context, id engine.ConversationID) (engine.Memory, error) {
	s.Lock()
	defer s.Unlock()
	if s.FailLoadMemory != nil {
		return engine.Memory{}, s.FailLoadMemory
	}
	return cloneMemory(s.Memories[id]), nil
}

// RecordUsage implements engine.UsageRecorder.
func (s *Store) RecordUsage(_ context.Context, u engine.Usage) error {
	s.Lock()
	s.usage = append(s.usage, u)
	s.Unlock()
	return nil
}

// Usage returns the usage records so far.
func (s *Store) Usage() []engine.Usage {
	s.Lock()
	defer s.Unlock()
	return append([]engine.Usage(nil), s.usage...)
}

// Mode returns conversation id's stored mode as the engine reads it (Deactivated when none).
func (s *Store) Mode(id engine.ConversationID) engine.Mode {
	s.Lock()
	defer s.Unlock()
	if m := s.Recs[id].Mode; !deactivated(m) {
		return m
	}
	return engine.ModeDeactivated
}

// SetMode stores mode m for conversation id from outside the engine. It stands for a mode
// switched on earlier, so it counts as announced then (as the migration assumes of modes an
// earlier version stored).
func (s *Store) SetMode(id engine.ConversationID, m engine.Mode) {
	s.Lock()
	defer s.Unlock()
	r := s.Recs[id]
	r.ID, r.Mode, r.Announced = id, m, m
	s.Recs[id] = r
}

// Record returns conversation id's stored record.
func (s *Store) Record(id engine.ConversationID) (engine.Conversation, bool) {
	s.Lock()
	defer s.Unlock()
	r, ok := s.Recs[id]
	return r, ok
}

// Put stores r as it is, the leftover and the conversation's model included (as the settings
// window or an earlier session would have left it).
func (s *Store) Put(r engine.Conversation) {
	s.Lock()
	s.Recs[r.ID] = r
	s.Unlock()
}

// SetMemory stores conversation id's memory (as the model or the user left it earlier).
func (s *Store) SetMemory(id engine.ConversationID, m engine.Memory) {
	s.Lock()
	s.Memories[id] = cloneMemory(m)
	s.Unlock()
}

// Memory returns conversation id's stored memory.
func (s *Store) Memory(id engine.ConversationID) engine.Memory {
	s.Lock()
	defer s.Unlock()
	return cloneMemory(s.Memories[id])
}

// cloneMemory is m with a profiles map of its own, as a copy read from a database would be.
func cloneMemory(m engine.Memory) engine.Memory {
	m.Profiles = maps.Clone(m.Profiles)
	return m
}

// UpdatesFor returns the context updates applied to conversation id, in order.
func (s *Store) UpdatesFor(id engine.ConversationID) []engine.ContextUpdate {
	s.Lock()
	defer s.Unlock()
	return append([]engine.ContextUpdate(nil), s.Updates[id]...)
}
