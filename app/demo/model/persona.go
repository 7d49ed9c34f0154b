package model

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"

	"github.com/clanker-desktop/clanker/app/engine"
)

// addressedRE matches the name Clanker (or Clank) as a word, the way people address the bot.
var addressedRE = regexp.MustCompile(`(?i)\bclank(er)?\b`)

// senderRE splits the "<Sender>: <text>" form the client uses for other people's messages.
var senderRE = regexp.MustCompile(`^([^:\n]{1,60}):\s+(.*)$`)

// imageLabelPrefix starts the text part the client sends beside an image, naming it.
const imageLabelPrefix = "[IMAGE DATA"

// Message is one chat message as the persona reads it: its role, its text parts in order
// and how many image parts it carries.
type Message struct {
	Role   string
	Texts  []string
	Images int
}

// Reply is the demo persona: a clearly fake, deterministic model. It looks at the last user
// message; when that message addresses Clanker it answers with valid Clanker JSON whose
// text says it comes from the demo model, otherwise it answers {"response": null}. When
// the request carries an image it acknowledges the image instead. The same messages always
// get the same answer: the wording is picked by a hash of the message, never at random.
func Reply(msgs []Message) string {
	images, label := 0, ""
	for _, m := range msgs {
		images += m.Images
		for _, t := range m.Texts {
			if strings.HasPrefix(t, imageLabelPrefix) {
				label = t
			}
		}
	}
	if images > 0 {
		text := "Demo model here: I received your image"
		if label != "" {
			text += " " + label
		}
		text += ", but I am only the Clanker demo and cannot really see it."
		return answer(text, "Demo summary: someone shared an image and the demo model acknowledged it.")
	}

	last := lastUserText(msgs)
	if !addressedRE.MatchString(last) {
		return `{"response": null}`
	}
	sender, said := "someone", last
	if m := senderRE.FindStringSubmatch(last); m != nil {
		sender, said = m[1], m[2]
	}
	quote := engine.Clip(strings.Join(strings.Fields(said), " "), 60)

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
	return answer(text, fmt.Sprintf("Demo summary: %s spoke to Clanker (the demo model) about \"%s\".", sender, engine.Clip(quote, 40)))
}

// lastUserText joins the text parts of the last user message, or returns "".
func lastUserText(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		var texts []string
		for _, t := range msgs[i].Texts {
			if t != "" {
				texts = append(texts, t)
			}
		}
		return strings.Join(texts, "\n")
	}
	return ""
}

// answer is the Clanker reply format the prompt asks for.
func answer(response, summary string) string {
	out, _ := json.Marshal(struct {
		Response string `json:"response"`
		Summary  string `json:"summary"`
	}{response, summary})
	return string(out)
}
