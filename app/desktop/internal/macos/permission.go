package macos

// Decision is a WKPermissionDecision: the answer to a page's request for a device.
type Decision int

// The values of WKPermissionDecision (macOS 12).
const (
	Prompt Decision = 0
	Grant  Decision = 1
	Deny   Decision = 2
)

func (d Decision) String() string {
	switch d {
	case Prompt:
		return "prompt"
	case Grant:
		return "grant"
	case Deny:
		return "deny"
	}
	return "unknown"
}

// MediaKind is a WKMediaCaptureType: what a getUserMedia call asks for.
type MediaKind int

// The values of WKMediaCaptureType (macOS 12).
const (
	Camera              MediaKind = 0
	Microphone          MediaKind = 1
	CameraAndMicrophone MediaKind = 2
)

func (k MediaKind) String() string {
	switch k {
	case Camera:
		return "camera"
	case Microphone:
		return "microphone"
	case CameraAndMicrophone:
		return "camera and microphone"
	}
	return "unknown device"
}

// Request is a page's request for something only the app can give: a capture device
// or the file picker.
type Request struct {
	// Origin is the requesting frame's security origin, as Origin formats it.
	Origin string
	// FromMainView says the request comes from the main window, not a popup.
	FromMainView bool
	// MainFrame says it comes from the top document.
	MainFrame bool
}

// fromMessages says the request comes from the Messages page itself: its origin, in the
// main window. (Frames of that origin count: they are the same site.)
func (r Request) fromMessages(messagesOrigin string) bool {
	o := NormalOrigin(messagesOrigin)
	return r.FromMainView && o != "" && NormalOrigin(r.Origin) == o
}

// MediaCapture answers a camera or microphone request, with the reason for the log.
// Clanker reads conversations and types replies; it never needs a capture device, and
// the app bundle declares no camera or microphone use, so every request is denied at
// once, without asking the user, whoever asks.
func MediaCapture(r Request, kind MediaKind, messagesOrigin string) (Decision, string) {
	if !r.fromMessages(messagesOrigin) {
		return Deny, "the " + kind.String() + " was asked for by a page that is not the Messages page"
	}
	return Deny, "Clanker does not use the " + kind.String()
}

// FilePicker says whether a page may open the file picker (an <input type=file>):
// the Messages page may, to attach pictures to a message; a popup or any other origin
// may not, so a sign-in page or a frame cannot ask the user for files in Clanker's name.
func FilePicker(r Request, messagesOrigin string) bool {
	return r.fromMessages(messagesOrigin)
}
