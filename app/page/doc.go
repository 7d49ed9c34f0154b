// Package page is the Go side of the bridge protocol between Clanker and the Google
// Messages page (see inject/PROTOCOL.md).
//
// Everything the page sends is untrusted: the page may be compromised, changed by Google,
// or simply buggy, so DecodeEvent caps the size before parsing, rejects unknown event
// types and fields, and checks every string and list against the limits written in the
// struct tags. Commands travel the other way as JavaScript for WindowExecJS; EncodeCommand
// validates them with the same rules and wraps the JSON in a string literal that no
// message text can escape.
//
// The `v` struct tag carries the rules ("req", "max=N", "min=N", "items=N", "enum=a|b").
// The same tags produce the command schema the bridge validates against (Schema) and are
// checked against PROTOCOL.md by a test, so the three cannot drift apart silently.
package page

// ProtocolVersion is sent in every event and command; a mismatch means the embedded
// bridge and the Go binary were built from different sources.
const ProtocolVersion = 1

// Size limits shared by the bridge and the decoder.
const (
	// MaxEventBytes caps one event's JSON text. The bridge drops older snapshot messages
	// to stay under it; the decoder refuses anything larger before parsing.
	MaxEventBytes = 1 << 20
	// MaxTextLen caps a message's text (in characters); longer texts arrive truncated
	// with TextTruncated set.
	MaxTextLen = 4000
	// MaxImageBytes is the largest image fetch_image will return.
	MaxImageBytes = 16 << 20
	// ImageChunkBytes is how many raw bytes one image_chunk event carries (base64 in
	// the event, so about 4/3 of this on the wire).
	ImageChunkBytes = 96 << 10
	// UserQuietMillis is how long after the user's last key, click or edit in the page a
	// visit's navigate still waits: the user is using the window, and a visit taking it to
	// another conversation now would carry their next key (an Enter, say) there.
	UserQuietMillis = 2000
)
