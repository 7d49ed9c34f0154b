package diag

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Replacement texts.
const (
	redactedSecret = "[REDACTED SECRET]"
	redactedEmail  = "user@redacted.invalid"
	youName        = "You"
)

var (
	// keyLike matches strings shaped like provider API keys and bearer
	// tokens, so a key that reached some log line is caught even when the
	// caller did not pass it as a secret.
	keyLike = regexp.MustCompile(`(?i)\b(?:sk|xai|pk|rk|sess|key)-[A-Za-z0-9_\-]{12,}|(?i)\bbearer\s+[A-Za-z0-9._~+/=\-]{8,}`)
	// blobURL matches the page's image URLs, e.g.
	// blob:https://messages.google.com/0f3c2a1e-....
	blobURL = regexp.MustCompile(`(?i)\bblob:[^\s"'<>()\[\]]+`)
	// anyURL matches scheme://anything and data: URLs.
	anyURL  = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]{1,15})://[^\s"'<>()\[\]]*`)
	dataURL = regexp.MustCompile(`(?i)\bdata:[a-z]+/[a-z0-9.+\-]+[;,][^\s"'<>()\[\]]*`)
	// bareDomain matches host names written without a scheme
	// ("www.example.com/x", "example.org") for common top-level domains.
	bareDomain = regexp.MustCompile(`(?i)\b(?:[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?\.)+(?:com|net|org|io|ai|co|uk|de|fr|info|biz|app|dev|me|us|ca|gov|edu|ly|gl|gg|tv)\b(?:/[^\s"'<>()\[\]]*)?`)
	email      = regexp.MustCompile(`(?i)\b[a-z0-9._%+\-]+@[a-z0-9\-]+(?:\.[a-z0-9\-]+)+\b`)
	// phoneCandidate finds runs of digits with the separators phone numbers
	// use; phoneDigits then decides by digit count.
	phoneCandidate = regexp.MustCompile(`\+?\(?\d[\d ().\-]*\d\)?`)
	// phoneShapes are the usual written forms, tried first so that two
	// numbers in a row are not read as one long run of digits.
	phoneShapes = []*regexp.Regexp{
		regexp.MustCompile(`\+\d{1,3}[ .\-]?\(?\d{1,4}\)?(?:[ .\-]?\d{2,4}){2,4}\b`),
		regexp.MustCompile(`(?:\b1[ .\-]?)?(?:\(\d{3}\)|\b\d{3})[ .\-]?\d{3}[ .\-]?\d{4}\b`),
		regexp.MustCompile(`\b\d{3}[.\-]\d{4}\b`),
	}
	isoDate   = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$`)
	shortCode = regexp.MustCompile(`^\d{1,10}$`)
)

// scrubber removes secrets; it is the whole of the unsanitised view's
// redaction and the first step of the sanitised one.
type scrubber struct{ secrets []string }

func newScrubber(secrets []string) scrubber {
	var s scrubber
	for _, sec := range secrets {
		if sec = strings.TrimSpace(sec); len(sec) >= 4 {
			s.secrets = append(s.secrets, sec)
		}
	}
	// Longest first, so a secret that contains another is removed whole.
	sort.Slice(s.secrets, func(i, j int) bool { return len(s.secrets[i]) > len(s.secrets[j]) })
	return s
}

func (s scrubber) scrub(v string) string {
	for _, sec := range s.secrets {
		v = strings.ReplaceAll(v, sec, redactedSecret)
	}
	return keyLike.ReplaceAllString(v, redactedSecret)
}

// Redactor replaces identifying details with stable labels. The same input
// always gets the same label within one Redactor, so a report still shows
// who said what and which messages share an image, without saying who or
// what.
type Redactor struct {
	scrubber
	names   map[string]string // lower-case name or name word -> label
	order   []string          // keys of names, longest first
	pattern *regexp.Regexp    // alternation of order, case-insensitive
	phones  map[string]string // normalised digits -> label
	ids     map[string]string
	blobs   map[string]string
	nUser   int
}

// NewRedactor prepares a Redactor for the given person names (in first-seen
// order, which fixes their labels) and secrets. "You" is kept as it is.
// Names that are phone numbers or short codes get phone labels.
func NewRedactor(names []string, secrets ...string) *Redactor {
	r := &Redactor{
		scrubber: newScrubber(secrets),
		names:    map[string]string{},
		phones:   map[string]string{},
		ids:      map[string]string{},
		blobs:    map[string]string{},
	}
	var words [][2]string
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" || strings.EqualFold(n, youName) {
			continue
		}
		key := strings.ToLower(n)
		if _, ok := r.names[key]; ok {
			continue
		}
		if label, ok := r.phoneLabel(n); ok {
			r.names[key] = label
			continue
		}
		r.nUser++
		label := fmt.Sprintf("User%03d", r.nUser)
		r.names[key] = label
		for _, w := range strings.FieldsFunc(n, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '\'' && c != '-' }) {
			if utf8.RuneCountInString(w) >= 3 && !strings.EqualFold(w, youName) {
				words = append(words, [2]string{strings.ToLower(w), label})
			}
		}
	}
	// Words of multi-word names ("Ann" of "Ann Lee") map to that person's
	// label unless a full name already claimed them.
	for _, w := range words {
		if _, ok := r.names[w[0]]; !ok {
			r.names[w[0]] = w[1]
		}
	}
	for k := range r.names {
		if utf8.RuneCountInString(k) >= 2 {
			r.order = append(r.order, k)
		}
	}
	sort.Slice(r.order, func(i, j int) bool {
		if len(r.order[i]) != len(r.order[j]) {
			return len(r.order[i]) > len(r.order[j])
		}
		return r.order[i] < r.order[j]
	})
	if len(r.order) > 0 {
		quoted := make([]string, len(r.order))
		for i, k := range r.order {
			quoted[i] = regexp.QuoteMeta(k)
		}
		r.pattern = regexp.MustCompile(`(?i)(?:` + strings.Join(quoted, "|") + `)`)
	}
	return r
}

// Name returns the label for a person name ("You" stays "You"). A name not
// given to NewRedactor still gets a label, so nothing slips through.
func (r *Redactor) Name(n string) string {
	t := strings.TrimSpace(n)
	if t == "" || strings.EqualFold(t, youName) {
		return t
	}
	if label, ok := r.names[strings.ToLower(t)]; ok {
		return label
	}
	if label, ok := r.phoneLabel(t); ok {
		return label
	}
	r.nUser++
	label := fmt.Sprintf("User%03d", r.nUser)
	r.names[strings.ToLower(t)] = label
	return label
}

// phoneLabel returns the label for s when s is a phone number (7 to 15
// digits in any common format) or an all-digit short code (1 to 10 digits,
// how automated senders appear).
func (r *Redactor) phoneLabel(s string) (string, bool) {
	digits := phoneDigits(s)
	if digits == "" {
		return "", false
	}
	if label, ok := r.phones[digits]; ok {
		return label, true
	}
	label := fmt.Sprintf("(%03d) XXX-XXXX", len(r.phones)+1)
	r.phones[digits] = label
	return label, true
}

// phoneDigits returns the normalised digits of s if s looks like a phone
// number, else "". A leading NANP country code 1 is dropped so
// "+1 555 555 1234" and "(555) 555-1234" are the same number.
func phoneDigits(s string) string {
	s = strings.TrimSpace(s)
	if isoDate.MatchString(s) {
		return ""
	}
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			b.WriteRune(c)
		case strings.ContainsRune(" ().-+", c):
		default:
			return ""
		}
	}
	d := b.String()
	if shortCode.MatchString(s) {
		return d
	}
	if len(d) < 7 || len(d) > 15 {
		return ""
	}
	if len(d) == 11 && d[0] == '1' {
		d = d[1:]
	}
	return d
}

// ID returns a stable opaque label for a conversation or message ID,
// keeping only the temporary-ID marker, which matters when debugging.
func (r *Redactor) ID(id string) string {
	if id == "" {
		return ""
	}
	if label, ok := r.ids[id]; ok {
		return label
	}
	label := fmt.Sprintf("id-%03d", len(r.ids)+1)
	if strings.HasPrefix(id, "tmp_") {
		label = "tmp_" + label
	}
	r.ids[id] = label
	return label
}

// MessageText replaces a message body by its length, keeping the
// "[clanker]" prefix that tells Clanker's own messages apart.
func (r *Redactor) MessageText(text string) string {
	if text == "" {
		return ""
	}
	prefix := ""
	if strings.HasPrefix(strings.ToLower(text), "[clanker]") {
		prefix = "[clanker] "
	}
	return fmt.Sprintf("%s[message text redacted, %d characters]", prefix, utf8.RuneCountInString(text))
}

// Text removes identifying details from free text: secrets, blob URLs (each
// distinct one numbered), other URLs (host and path dropped), e-mail
// addresses, phone numbers and names.
func (r *Redactor) Text(s string) string {
	if s == "" {
		return s
	}
	s = r.scrub(s)
	s = blobURL.ReplaceAllStringFunc(s, func(m string) string {
		label, ok := r.blobs[m]
		if !ok {
			label = fmt.Sprintf("blob:redacted/%03d", len(r.blobs)+1)
			r.blobs[m] = label
		}
		return label
	})
	s = dataURL.ReplaceAllString(s, "data:redacted")
	s = anyURL.ReplaceAllStringFunc(s, func(m string) string {
		scheme := strings.ToLower(m[:strings.Index(m, "://")])
		return scheme + "://redacted" + trailingPunct(m)
	})
	s = email.ReplaceAllString(s, redactedEmail)
	s = bareDomain.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasSuffix(strings.ToLower(m), "redacted.invalid") {
			return m
		}
		return "redacted.invalid" + trailingPunct(m)
	})
	for _, re := range phoneShapes {
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			if label, ok := r.phoneLabel(m); ok {
				return label
			}
			return m
		})
	}
	s = phoneCandidate.ReplaceAllStringFunc(s, func(m string) string {
		// Trim separators the pattern may have taken from the context
		// ("call (555) 555-1234." keeps its full stop).
		core := strings.TrimRight(m, " .-")
		if strings.Count(core, "(") < strings.Count(core, ")") {
			core = strings.TrimSuffix(core, ")")
		}
		d := phoneDigits(core)
		if len(d) < 7 {
			return m
		}
		label, _ := r.phoneLabel(core)
		return label + m[len(core):]
	})
	return r.replaceNames(s)
}

// trailingPunct returns the sentence punctuation a URL pattern took from the
// end of a match, so "see https://x.example/a." keeps its full stop.
func trailingPunct(m string) string {
	return m[len(strings.TrimRight(m, ".,;:!?")):]
}

// replaceNames swaps every name for its label where it stands as a whole
// word: not inside a longer word, but next to punctuation is fine, which
// catches "Ann's" and "(Ann)".
func (r *Redactor) replaceNames(s string) string {
	if r.pattern == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, loc := range r.pattern.FindAllStringIndex(s, -1) {
		start, end := loc[0], loc[1]
		if !boundaryBefore(s, start) || !boundaryAfter(s, end) {
			continue
		}
		label, ok := r.names[strings.ToLower(s[start:end])]
		if !ok {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(label)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

func isWordRune(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_' }

func boundaryBefore(s string, i int) bool {
	if i == 0 {
		return true
	}
	c, _ := utf8.DecodeLastRuneInString(s[:i])
	return !isWordRune(c)
}

func boundaryAfter(s string, i int) bool {
	if i >= len(s) {
		return true
	}
	c, _ := utf8.DecodeRuneInString(s[i:])
	return !isWordRune(c)
}

// Value sanitises a decoded JSON value (a recorded page fixture, say):
// strings and map keys go through Text, recursively. Use it for data whose
// shape diag does not know.
func (r *Redactor) Value(v any) any {
	switch t := v.(type) {
	case string:
		return r.Text(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			out[r.Text(k)] = r.Value(val)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = r.Value(val)
		}
		return out
	default:
		return v
	}
}
