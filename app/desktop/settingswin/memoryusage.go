package settingswin

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// MemoryEditor writes what Clanker remembers about a conversation on the user's behalf.
// In the app it goes through the running app's engine (so an answer in flight cannot write
// over the edit) and falls back to the store when no app runs on this data folder.
type MemoryEditor interface {
	// EditMemory replaces the memory of id with m; an empty m clears it. The error is a
	// sentence for the user.
	EditMemory(ctx context.Context, id engine.ConversationID, m engine.Memory) error
}

// usageDays is how many days, today included, the usage report covers.
const usageDays = 30

// UsageReport is the usage over the last usageDays days, per day and per conversation.
type UsageReport struct {
	// From and To name the first and last day covered (YYYY-MM-DD, local time).
	From string `json:"from"`
	To   string `json:"to"`
	// Days has one line per day with requests, newest first.
	Days []UsageLine `json:"days"`
	// Conversations has one line per conversation with requests, most tokens first.
	Conversations []UsageLine `json:"conversations"`
	// Total sums every line.
	Total UsageLine `json:"total"`
	// Priced is set when the budget settings hold prices, so costs can be shown.
	Priced bool `json:"priced"`
	// Unpriced lists the models used that have no price in the budget settings, so their
	// lines show no cost.
	Unpriced []string `json:"unpriced"`
}

// UsageLine is the usage of one day or one conversation.
type UsageLine struct {
	// Key is the day (YYYY-MM-DD) or the conversation ID.
	Key string `json:"key"`
	// Name is the conversation's name as Messages shows it ("" for a day, or a
	// conversation whose name Clanker has not seen). It comes from the page: text only.
	Name       string `json:"name,omitempty"`
	Requests   int    `json:"requests"`
	Prompt     int64  `json:"prompt"`
	Completion int64  `json:"completion"`
	Total      int64  `json:"total"`
	// Cost is the price of the tokens by the budget's prices, or -1 when a model used
	// has no price (or none are set).
	Cost float64 `json:"cost"`
}

func (l *UsageLine) add(u engine.Usage, prices map[string]engine.Price) {
	l.Requests++
	l.Prompt += u.Tokens.Prompt
	l.Completion += u.Tokens.Completion
	l.Total += u.Tokens.Total()
	p, ok := prices[u.Model]
	if !ok || l.Cost < 0 {
		l.Cost = -1
		return
	}
	l.Cost += p.Cost(u.Tokens)
}

func (s *SettingsService) usageReport(ctx context.Context, st engine.Settings) UsageReport {
	now := time.Now()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.Local)
	from := today.AddDate(0, 0, -(usageDays - 1))
	r := UsageReport{From: from.Format(time.DateOnly), To: today.Format(time.DateOnly), Days: []UsageLine{},
		Conversations: []UsageLine{}, Unpriced: []string{}, Priced: len(st.Budget.Prices) > 0}
	rows, err := s.Store.Usage(ctx, from, today.AddDate(0, 0, 1))
	if err != nil {
		s.log().Warn("settings window: cannot read usage records", "err", err)
		return r
	}
	days, convs := map[string]*UsageLine{}, map[string]*UsageLine{}
	unpriced := map[string]bool{}
	line := func(m map[string]*UsageLine, key string) *UsageLine {
		if m[key] == nil {
			m[key] = &UsageLine{Key: key}
		}
		return m[key]
	}
	for _, u := range rows {
		line(days, u.At.In(time.Local).Format(time.DateOnly)).add(u, st.Budget.Prices)
		line(convs, string(u.Conversation)).add(u, st.Budget.Prices)
		r.Total.add(u, st.Budget.Prices)
		if _, ok := st.Budget.Prices[u.Model]; !ok {
			unpriced[u.Model] = true
		}
	}
	for _, l := range days {
		r.Days = append(r.Days, *l)
	}
	sort.Slice(r.Days, func(i, j int) bool { return r.Days[i].Key > r.Days[j].Key })
	names := s.conversationNames(ctx)
	for _, l := range convs {
		l.Name = names[l.Key]
		r.Conversations = append(r.Conversations, *l)
	}
	sort.Slice(r.Conversations, func(i, j int) bool {
		a, b := r.Conversations[i], r.Conversations[j]
		if a.Total != b.Total {
			return a.Total > b.Total
		}
		return a.Key < b.Key
	})
	for m := range unpriced {
		r.Unpriced = append(r.Unpriced, m)
	}
	sort.Strings(r.Unpriced)
	return r
}

// ConversationView is one stored conversation as the memory view shows it. Every text in
// it came from the Messages page or the model: the page renders it as text only.
type ConversationView struct {
	ID string `json:"id"`
	// Name is the conversation's name as the Messages sidebar shows it ("" until Clanker
	// has seen it).
	Name          string    `json:"name"`
	Mode          string    `json:"mode"`
	LastSeen      string    `json:"lastSeen"`
	Summary       string    `json:"summary"`
	Customization string    `json:"customization"`
	Profiles      []Profile `json:"profiles"`
	ModelOverride string    `json:"modelOverride"`
}

// Profile is one participant's notes.
type Profile struct {
	Name  string `json:"name"`
	Notes string `json:"notes"`
}

func conversationView(c engine.Conversation) ConversationView {
	v := ConversationView{ID: string(c.ID), Name: c.Name, Mode: string(c.Mode), Summary: c.Memory.Summary,
		Customization: c.Memory.Customization, Profiles: []Profile{}, ModelOverride: c.ModelOverride}
	if !c.LastSeen.IsZero() {
		v.LastSeen = c.LastSeen.In(time.Local).Format("2006-01-02 15:04")
	}
	for name, notes := range c.Memory.Profiles {
		v.Profiles = append(v.Profiles, Profile{Name: name, Notes: notes})
	}
	sort.Slice(v.Profiles, func(i, j int) bool { return v.Profiles[i].Name < v.Profiles[j].Name })
	return v
}

func (s *SettingsService) conversations(ctx context.Context) []ConversationView {
	out := []ConversationView{}
	cs, err := s.Store.Conversations(ctx)
	if err != nil {
		s.log().Warn("settings window: cannot list the conversations", "err", err)
		return out
	}
	for _, c := range cs {
		out = append(out, conversationView(c))
	}
	return out
}

// conversationNames maps each stored conversation's id to its name.
func (s *SettingsService) conversationNames(ctx context.Context) map[string]string {
	cs, err := s.Store.Conversations(ctx)
	if err != nil {
		s.log().Warn("settings window: cannot read the conversations' names", "err", err)
		return nil
	}
	out := make(map[string]string, len(cs))
	for _, c := range cs {
		if c.Name != "" {
			out[string(c.ID)] = c.Name
		}
	}
	return out
}

// notWritable is the sentence shown when the database cannot be written, or "".
func (s *SettingsService) notWritable() string {
	if err := s.Store.CheckCanWrite(); err != nil {
		s.log().Warn("settings window: the database cannot be written", "err", err)
		return fmt.Sprintf("Clanker cannot write its database at %s: it is read-only for you. Make the data folder "+
			"and the files in it writable (or start Clanker with --data-dir set to a folder you can write), then try "+
			"again. Nothing was changed.", s.Store.Path())
	}
	return ""
}

// MemoryRequest is a memory edit from the page.
type MemoryRequest struct {
	Conversation  string    `json:"conversation"`
	Summary       string    `json:"summary"`
	Customization string    `json:"customization"`
	Profiles      []Profile `json:"profiles"`
}

// ConversationRequest names a conversation (Clear memory).
type ConversationRequest struct {
	Conversation string `json:"conversation"`
}

// ModelOverrideRequest sets a conversation's model ("" for the global model).
type ModelOverrideRequest struct {
	Conversation string `json:"conversation"`
	Model        string `json:"model"`
}

// ConversationResult says whether a change to one conversation was made and, if not,
// why (per field, or as one sentence).
type ConversationResult struct {
	Saved        bool              `json:"saved"`
	Errors       map[string]string `json:"errors"`
	Message      string            `json:"message,omitempty"`
	Conversation *ConversationView `json:"conversation,omitempty"`
}

func failed(msg string) *ConversationResult {
	return &ConversationResult{Errors: map[string]string{}, Message: msg}
}

// stored reads one conversation back for the page after a change.
func (s *SettingsService) stored(ctx context.Context, id string) (*ConversationView, error) {
	cs, err := s.Store.Conversations(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the conversation back: %w", err)
	}
	for _, c := range cs {
		if string(c.ID) == id {
			v := conversationView(c)
			return &v, nil
		}
	}
	return nil, fmt.Errorf("conversation %s is no longer stored", id)
}

func checkConversation(id string) string {
	if strings.TrimSpace(id) == "" || len(id) > 512 {
		return "Choose a conversation first."
	}
	return ""
}

// SaveMemory validates the edited memory and writes it through the MemoryEditor. Nothing
// is written when any field is invalid.
func (s *SettingsService) SaveMemory(req MemoryRequest) (*ConversationResult, error) {
	if msg := checkConversation(req.Conversation); msg != "" {
		return failed(msg), nil
	}
	mem := engine.Memory{Summary: req.Summary, Customization: req.Customization, Profiles: map[string]string{}}
	errs := map[string]string{}
	for _, p := range req.Profiles {
		name := strings.TrimSpace(p.Name)
		if _, dup := mem.Profiles[name]; dup && name != "" {
			errs[engine.FieldProfiles] = fmt.Sprintf("Two profiles are named %q; merge them into one.", name)
		}
		if name == "" && strings.TrimSpace(p.Notes) != "" {
			errs[engine.FieldProfiles] = "Every participant profile needs a name."
		}
		mem.Profiles[name] = p.Notes
	}
	mem = engine.NormalizeMemory(mem)
	var es engine.FieldErrors
	if err := engine.ValidateMemory(mem); errors.As(err, &es) {
		for _, e := range es {
			if errs[e.Field] == "" {
				errs[e.Field] = e.Message
			}
		}
	}
	if len(errs) > 0 {
		return &ConversationResult{Errors: errs}, nil
	}
	return s.editMemory(req.Conversation, mem, "memory saved from the settings window")
}

// ClearMemory removes the summary, persona customisation and profiles of a conversation.
// Its mode and model choice stay.
func (s *SettingsService) ClearMemory(req ConversationRequest) (*ConversationResult, error) {
	if msg := checkConversation(req.Conversation); msg != "" {
		return failed(msg), nil
	}
	return s.editMemory(req.Conversation, engine.Memory{Profiles: map[string]string{}}, "memory cleared from the settings window")
}

func (s *SettingsService) editMemory(id string, mem engine.Memory, logMsg string) (*ConversationResult, error) {
	if s.Memory == nil {
		return failed("This window cannot change Clanker's memory."), nil
	}
	if msg := s.notWritable(); msg != "" {
		return failed(msg), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Memory.EditMemory(ctx, engine.ConversationID(id), mem); err != nil {
		if msg := s.notWritable(); msg != "" {
			return failed(msg), nil
		}
		return failed(err.Error()), nil
	}
	s.log().Info(logMsg)
	v, err := s.stored(ctx, id)
	if err != nil {
		return nil, err
	}
	return &ConversationResult{Saved: true, Errors: map[string]string{}, Conversation: v}, nil
}

// SetModelOverride stores the model used for one conversation ("" for the global model).
// The app reads it for every request in that conversation.
func (s *SettingsService) SetModelOverride(req ModelOverrideRequest) (*ConversationResult, error) {
	if msg := checkConversation(req.Conversation); msg != "" {
		return failed(msg), nil
	}
	model := strings.TrimSpace(req.Model)
	if msg := engine.ValidateModelOverride(model); msg != "" {
		return &ConversationResult{Errors: map[string]string{engine.FieldModelOverride: msg}}, nil
	}
	ctx, cancel := ctxTimeout()
	defer cancel()
	if st, err := s.Store.Settings(ctx); err == nil && model != "" && st.Budget.Kind == engine.BudgetCost {
		if _, ok := st.Budget.Prices[model]; !ok {
			return &ConversationResult{Errors: map[string]string{engine.FieldModelOverride: engine.NoPriceMessage(model)}}, nil
		}
	}
	if msg := s.notWritable(); msg != "" {
		return failed(msg), nil
	}
	if err := s.Store.SetModelOverride(ctx, req.Conversation, model); err != nil {
		if msg := s.notWritable(); msg != "" {
			return failed(msg), nil
		}
		return nil, fmt.Errorf("save the conversation's model: %w", err)
	}
	s.log().Info("conversation model saved from the settings window", "override", model != "")
	v, err := s.stored(ctx, req.Conversation)
	if err != nil {
		return nil, err
	}
	return &ConversationResult{Saved: true, Errors: map[string]string{}, Conversation: v}, nil
}
