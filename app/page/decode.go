package page

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/clanker-desktop/clanker/app/engine"
)

// ErrTooLarge is returned for events over MaxEventBytes; they are refused unparsed.
var ErrTooLarge = errors.New("page event too large")

// DecodeEvent parses one event as the page sent it (the JSON text of the envelope). It
// refuses oversized input before parsing, unknown event types, unknown fields, a wrong
// protocol version, and any value outside the protocol's limits. The error says which
// field was wrong; the input itself is never echoed beyond a short clip.
func DecodeEvent(raw []byte) (Envelope, error) {
	var env Envelope
	if len(raw) > MaxEventBytes {
		return env, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(raw), MaxEventBytes)
	}
	if err := strictUnmarshal(raw, &env); err != nil {
		return env, fmt.Errorf("page event envelope: %w", err)
	}
	if env.V != ProtocolVersion {
		return env, fmt.Errorf("page event: protocol version %d, this build speaks %d", env.V, ProtocolVersion)
	}
	if env.Seq < 1 {
		return env, fmt.Errorf("page event %q: sequence number %d must be positive", engine.Clip(env.Type, maxQuoted), env.Seq)
	}
	mk, ok := eventTypes[env.Type]
	if !ok {
		return env, fmt.Errorf("page event: unknown type %q", engine.Clip(env.Type, maxQuoted))
	}
	if len(env.Data) == 0 || string(env.Data) == "null" {
		return env, fmt.Errorf("page event %s: missing data", env.Type)
	}
	ev := mk()
	if err := strictUnmarshal(env.Data, ev); err != nil {
		return env, fmt.Errorf("page event %s: %w", env.Type, err)
	}
	if err := validate(reflect.ValueOf(ev), ""); err != nil {
		return env, fmt.Errorf("page event %s: %w", env.Type, err)
	}
	env.Event = reflect.ValueOf(ev).Elem().Interface().(Event)
	return env, nil
}

// strictUnmarshal decodes exactly one JSON value with no unknown fields and nothing after it.
func strictUnmarshal(raw []byte, into any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		// encoding/json quotes offending field names whole; a hostile page can make one
		// half a megabyte, so the error (which ends up in a log line) is clipped.
		return errors.New(engine.Clip(err.Error(), maxErrorText))
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// maxErrorText bounds the text of a decoding error, in runes.
const maxErrorText = 300
