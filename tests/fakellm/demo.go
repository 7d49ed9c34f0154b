package fakellm

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
	"unicode/utf8"
)

// addressedRE matches the name Clanker (or Clank) as a word, the way people address the bot.
var addressedRE = regexp.MustCompile(`(?i)\bclank(er)?\b`)

// senderRE splits the "<Sender>: <text>" form the client uses for other people's messages.
var senderRE = regexp.MustCompile(`^([^:\n]{1,60}):\s+(.*)$`)

// DemoReply is the demo persona: a clearly fake, deterministic model. It looks at the last user
// message of the request; when that message addresses Clanker it answers with valid Clanker JSON
// whose text says it comes from the demo model, otherwise it answers {"response": null}. When the
// request carries an image part it acknowledges the image instead. The same request always gets
// the same answer: the wording is picked by a hash of the message, never at random.
func DemoReply(r Request) string {
	if imgs := r.Images(); len(imgs) > 0 {
		label := ""
		for _, m := range r.Messages {
			for _, p := range m.Parts {
				if !p.IsImage() && strings.HasPrefix(p.Text, "[IMAGE DATA") {
					label = p.Text
				}
			}
		}
		text := "Demo model here: I received your image"
		if label != "" {
			text += " " + label
		}
		text += ", but I am only the Clanker demo and cannot really see it."
		return mustJSON(map[string]any{
			"response": text,
			"summary":  "Demo summary: someone shared an image and the demo model acknowledged it.",
		})
	}

	last := r.LastUserText()
	if !addressedRE.MatchString(last) {
		return `{"response": null}`
	}
	sender, said := "someone", last
	if m := senderRE.FindStringSubmatch(last); m != nil {
		sender, said = m[1], m[2]
	}
	quote := clip(strings.Join(strings.Fields(said), " "), 60)

	templates := []string{
		"Hi %s, this is the Clanker demo model, not a real AI. You said: \"%s\".",
		"Demo model reporting in, %s. I only echo for the demo: \"%s\".",
		"Hello %s! I am the built-in Clanker demo, so no real thinking here. I heard: \"%s\".",
	}
	if strings.HasSuffix(strings.TrimSpace(said), "?") {
		templates = []string{
			"Good question, %s. I am just the Clanker demo model, so I cannot really answer \"%s\".",
			"%s, the demo model has no real answers, but thanks for asking \"%s\".",
		}
	}
	h := fnv.New32a()
	h.Write([]byte(last))
	text := fmt.Sprintf(templates[h.Sum32()%uint32(len(templates))], sender, quote)

	out, _ := json.Marshal(struct {
		Response string `json:"response"`
		Summary  string `json:"summary"`
	}{text, fmt.Sprintf("Demo summary: %s spoke to Clanker (the demo model) about \"%s\".", sender, clip(quote, 40))})
	return string(out)
}

// clip shortens s to at most n runes, marking the cut with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
