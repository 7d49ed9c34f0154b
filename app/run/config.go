package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sort"
	"strings"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/keychain"
	"github.com/clanker-desktop/clanker/app/sqlite"
)

// APIKeyName is the config key of the API key; it is stored apart from the settings
// (keychain or database) and only ever shown masked.
const APIKeyName = "apiKey"

// OpenStoreNoRepair opens the store for the commands that are not the app (config, diag, the
// settings window): a damaged database is reported and left alone, and a read-only one is
// opened for reading.
func OpenStoreNoRepair(dir string, noKeychain bool, log *slog.Logger) (*sqlite.Store, error) {
	s, err := sqlite.OpenNoRepair(dir)
	if err != nil {
		return nil, storeError(dir, err)
	}
	return withChoices(s, noKeychain, log), nil
}

// withChoices applies the keychain choice and the logger to an opened store.
func withChoices(s *sqlite.Store, noKeychain bool, log *slog.Logger) *sqlite.Store {
	if !noKeychain {
		s.Secrets = keychain.System{}
	}
	if log != nil {
		s.Log = log
	}
	return s
}

// storeError adds the data directory to an open error, except to the store's own sentences
// for a damaged or read-only database, which already say where and what to do.
func storeError(dir string, err error) error {
	var damaged *sqlite.DamagedError
	var readOnly *sqlite.NotWritableError
	if errors.As(err, &damaged) || errors.As(err, &readOnly) {
		return err
	}
	return fmt.Errorf("open Clanker's database in %s: %w", dir, err)
}

// ConfigEntry is one setting as `clanker config list` shows it.
type ConfigEntry struct {
	Key   string
	Value string
}

// canonicalKey accepts the JSON names (userName, notifications.errors) and their
// snake_case spellings (user_name, api_key).
func canonicalKey(k string) string {
	parts := strings.Split(strings.TrimSpace(k), ".")
	for i, p := range parts {
		words := strings.Split(p, "_")
		for j := 1; j < len(words); j++ {
			if words[j] != "" {
				words[j] = strings.ToUpper(words[j][:1]) + words[j][1:]
			}
		}
		parts[i] = strings.Join(words, "")
	}
	return strings.Join(parts, ".")
}

// flatten turns the settings into dotted keys with JSON-encoded values (strings bare).
func flatten(st engine.Settings) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{}
	for k, v := range top {
		var nested map[string]json.RawMessage
		if k != "budget" && bytes.HasPrefix(bytes.TrimSpace(v), []byte("{")) && json.Unmarshal(v, &nested) == nil {
			for nk, nv := range nested {
				out[k+"."+nk] = nv
			}
			continue
		}
		out[k] = v
	}
	return out, nil
}

func display(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// ConfigList returns every setting, the API key masked.
func ConfigList(ctx context.Context, s *sqlite.Store) ([]ConfigEntry, error) {
	st, err := s.Settings(ctx)
	if err != nil {
		return nil, err
	}
	flat, err := flatten(st)
	if err != nil {
		return nil, err
	}
	masked, loc, err := s.MaskedAPIKey(ctx)
	if err != nil {
		return nil, err
	}
	out := []ConfigEntry{{Key: APIKeyName, Value: maskedWithPlace(masked, loc)}}
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, ConfigEntry{Key: k, Value: display(flat[k])})
	}
	return out, nil
}

func maskedWithPlace(masked string, loc engine.KeyLocation) string {
	if loc == engine.KeyNone {
		return "(not set)"
	}
	return masked + " (in " + string(loc) + ")"
}

// ConfigGet returns one setting; the API key only masked.
func ConfigGet(ctx context.Context, s *sqlite.Store, key string) (string, error) {
	key = canonicalKey(key)
	if key == APIKeyName {
		masked, loc, err := s.MaskedAPIKey(ctx)
		if err != nil {
			return "", err
		}
		return maskedWithPlace(masked, loc), nil
	}
	st, err := s.Settings(ctx)
	if err != nil {
		return "", err
	}
	flat, err := flatten(st)
	if err != nil {
		return "", err
	}
	v, ok := flat[key]
	if !ok {
		return "", unknownKey(key, flat)
	}
	return display(v), nil
}

// badValue is the sentence for a value of the wrong kind. It says what the setting (or the
// part of it that is wrong) takes, instead of the JSON decoder's text, which names Go types
// and struct fields the user never sees.
func badValue(key string, old json.RawMessage, value string, err error) error {
	part, kind := key, kindOf(old)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Type != nil {
		kind = kindName(te.Type.Kind())
		if te.Field != "" && te.Field != key {
			part = te.Field
		}
	}
	example := ""
	if part == key && kind != "true or false" {
		example = " like " + string(old)
	}
	return fmt.Errorf("%s takes %s%s, not %q; nothing was changed", part, kind, example, engine.Clip(value, 80))
}

// kindOf names the kind of a JSON value.
func kindOf(v json.RawMessage) string {
	switch t := strings.TrimSpace(string(v)); {
	case strings.HasPrefix(t, "{"):
		return "a JSON object"
	case t == "true" || t == "false":
		return "true or false"
	case strings.HasPrefix(t, `"`):
		return "text"
	}
	return "a number"
}

func kindName(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "text in quotes"
	}
	return "a JSON object"
}

func unknownKey(key string, flat map[string]json.RawMessage) error {
	keys := []string{APIKeyName}
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return fmt.Errorf("unknown setting %q; known settings: %s", key, strings.Join(keys, ", "))
}

// ConfigSetNote is what `clanker config set` adds after it changed key: for the API key,
// why it went to the database file when the keychain was meant to keep it ("" otherwise).
func ConfigSetNote(ctx context.Context, s *sqlite.Store, key string) string {
	if canonicalKey(key) != APIKeyName {
		return ""
	}
	return KeyNote(ctx, s)
}

// KeyNote says why the API key is kept in the database file although the keychain was meant
// to keep it: in one sentence that names what is missing when no keychain service is running
// at all. It is "" when the key is in the keychain, when there is none, or when the user chose
// --no-keychain.
func KeyNote(ctx context.Context, s *sqlite.Store) string {
	if s.Secrets == nil {
		return ""
	}
	if _, loc, err := s.MaskedAPIKey(ctx); err != nil || loc != engine.KeyDatabase {
		return ""
	}
	problem := s.KeychainProblem()
	switch {
	case problem == nil:
		return ""
	case errors.Is(problem, keychain.ErrNoService):
		return "The API key is kept in Clanker's database file because " + problem.Error() +
			". Start one and save the key again to move it into the keychain."
	}
	return "The API key is kept in Clanker's database file because the keychain failed: " + problem.Error() + "."
}

// ConfigSet changes one setting and saves it (validated; nothing is written when the
// value is refused). Strings are taken as typed; other settings take JSON values
// (true, 42, {"kind":"tokens","monthlyTokens":100000}). The API key goes to the keychain,
// or the database when there is none; an empty value removes it.
func ConfigSet(ctx context.Context, s *sqlite.Store, key, value string) error {
	key = canonicalKey(key)
	if s.ReadOnly() {
		return fmt.Errorf("%s was not changed: Clanker's database at %s is read-only for you; make it and its folder writable first", key, s.Path())
	}
	if key == APIKeyName {
		_, err := s.SetAPIKey(ctx, value)
		return err
	}
	st, err := s.Settings(ctx)
	if err != nil {
		return fmt.Errorf("the stored settings cannot be read, so nothing was changed: %w", err)
	}
	flat, err := flatten(st)
	if err != nil {
		return err
	}
	old, ok := flat[key]
	if !ok {
		return unknownKey(key, flat)
	}
	var nv json.RawMessage
	var probe string
	if json.Unmarshal(old, &probe) == nil {
		nv, _ = json.Marshal(value)
	} else {
		if !json.Valid([]byte(value)) {
			return badValue(key, old, value, nil)
		}
		nv = json.RawMessage(value)
	}
	flat[key] = nv
	// Rebuild the nested JSON and decode it strictly into Settings.
	top := map[string]any{}
	for k, v := range flat {
		if i := strings.IndexByte(k, '.'); i > 0 {
			m, _ := top[k[:i]].(map[string]json.RawMessage)
			if m == nil {
				m = map[string]json.RawMessage{}
				top[k[:i]] = m
			}
			m[k[i+1:]] = v
			continue
		}
		top[k] = v
	}
	b, err := json.Marshal(top)
	if err != nil {
		return err
	}
	var next engine.Settings
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&next); err != nil {
		return badValue(key, old, value, err)
	}
	if _, err := s.SaveSettings(ctx, next); err != nil {
		var fe engine.FieldErrors
		if errors.As(err, &fe) {
			return fmt.Errorf("not saved: %s", fe.Error())
		}
		return err
	}
	return nil
}
