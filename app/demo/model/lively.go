package model

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
)

// The app's own instructions (the greeting after Active is chosen, the quiet-chat news check;
// see app/llm's prompt) start with appInstruction, and the greeting's says the model was
// "switched on". The lively persona tells them apart from people's messages by these words.
const (
	appInstruction = "[APP INSTRUCTION]"
	activationMark = "switched on"
)

// imageLineRE matches a history line that shows an image: "Name: [IMAGE: <reference>]".
var imageLineRE = regexp.MustCompile(`^([^:\n]{1,60}): \[IMAGE: (\S+)\]`)

// topic is one thing people in the demo chat talk about, and how the demo model joins in.
// Each line takes the sender's name and the word that matched, so two messages on the same
// topic rarely get the same reply.
type topic struct {
	re    *regexp.Regexp
	lines []string
}

var topics = []topic{
	{regexp.MustCompile(`(?i)\b(eat|food|lunch|dinner|breakfast|pizza|tacos?|snacks?|hungry|coffee|picnic|cake)\b`), []string{
		"%s mentioned %s, so the demo model votes yes. It cannot taste anything, but it can cheer.",
		"Did someone say %[2]s? The demo model's only opinion on food: more of it, %[1]s.",
		"%[2]s sounds right, %[1]s. (A real model would suggest a place; I am just the demo.)",
	}},
	{regexp.MustCompile(`(?i)\b(rain|rainy|weather|sunny|sun|cold|forecast|snow|umbrella)\b`), []string{
		"The demo model has no forecast, %s, but %s is worth planning for.",
		"%[1]s, a real model could look up the %[2]s. I am the demo, so: bring a jacket.",
	}},
	{regexp.MustCompile(`(?i)\b(drive|driving|car|train|road|leave|leaving|pick up|tent|pack|packing)\b`), []string{
		"Logistics! %s brought up %s. The demo model suggests a list, and someone other than me to keep it.",
		"%[1]s, on %[2]s: the demo model cannot drive or carry anything, but it can remind you later. Well, a real model could.",
	}},
	{regexp.MustCompile(`(?i)\b(music|playlist|song|songs|band|concert)\b`), []string{
		"%s, for the %s the demo model picks: anything with a good chorus to sing along to.",
		"Demo model pick for the %[2]s, %[1]s: road-trip classics. A real model would name some.",
	}},
	{regexp.MustCompile(`(?i)\b(photo|picture|pic|view|camera)\b`), []string{
		"%s, that %s deserves a frame. (Said by the demo model, which cannot see it.)",
	}},
	{regexp.MustCompile(`(?i)\b(haha|lol|funny|joke|hilarious)\b`), []string{
		"Ha, %s. The demo model laughs on cue, since %s is in the message.",
		"The demo model's sense of humour is scripted, %s, but that was %s indeed.",
	}},
	{regexp.MustCompile(`(?i)\b(saturday|sunday|friday|tonight|tomorrow|weekend)\b`), []string{
		"%s, %s works for the demo model: it is free every day.",
		"Noted for %[2]s, %[1]s. A real Clanker would remember it in its summary; the demo just nods.",
	}},
}

// Lively is the persona the demo server answers with: Reply's, plus what makes `clanker demo`
// look alive. It greets in its own words when a conversation is switched to Active, asks to see
// an image someone just sent and then acknowledges it, and in Active mode (where the app asks
// about every message, not only those naming Clanker) joins in on messages about a topic it
// knows or with a question, saying each time that it is the demo model; other messages and
// the app's news checks get {"response": null}. It is as deterministic as Reply: the
// wording follows from the message, never from chance.
//
// Reply stays the quiet persona the tests' fake LLM server plays by default, so their
// expectations do not change with the demo's script.
func Lively(msgs []Message) string {
	last := lastUserText(msgs)
	if strings.HasPrefix(last, appInstruction) {
		if strings.Contains(last, activationMark) {
			return answer("Demo model switched on! I will chime in now and then, but I am only the built-in Clanker demo, not a real AI.",
				"Demo summary: Clanker (the demo model) was switched to Active here.")
		}
		return `{"response": null}`
	}
	sender, said := "someone", last
	if m := senderRE.FindStringSubmatch(last); m != nil {
		sender, said = m[1], m[2]
	}
	// Another Clanker's message: never start a back-and-forth between bots.
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(said)), "[clanker]") {
		return `{"response": null}`
	}
	images := 0
	for _, m := range msgs {
		images += m.Images
	}
	if images > 0 || addressedRE.MatchString(last) {
		return Reply(msgs)
	}
	if m := imageLineRE.FindStringSubmatch(last); m != nil {
		out, _ := json.Marshal(map[string]string{"requestImage": m[2]})
		return string(out)
	}
	h := fnv.New32a()
	h.Write([]byte(last))
	pick := h.Sum32()
	for _, tp := range topics {
		if m := tp.re.FindString(said); m != "" {
			text := fmt.Sprintf(tp.lines[pick%uint32(len(tp.lines))], sender, strings.ToLower(m))
			return answer(text, fmt.Sprintf("Demo summary: %s talked about %s; the demo model joined in.", sender, strings.ToLower(m)))
		}
	}
	if strings.HasSuffix(strings.TrimSpace(said), "?") {
		questions := []string{
			"Good question, %s. The demo model would guess yes, but it only pretends to think.",
			"%s, the demo model has no real answer to that one. A configured model would.",
		}
		return answer(fmt.Sprintf(questions[pick%uint32(len(questions))], sender),
			fmt.Sprintf("Demo summary: %s asked the group something.", sender))
	}
	return `{"response": null}`
}
