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
// Each line takes the sender's name and may use the word that matched.
type topic struct {
	re    *regexp.Regexp
	lines []string
}

var topics = []topic{
	{regexp.MustCompile(`(?i)\b(eat|cook|cooking|food|lunch|dinner|breakfast|pizza|tacos?|snacks?|hungry|coffee|picnic|cake)\b`), []string{
		"Did someone say %[2]s? The demo model votes yes, %[1]s, though it cannot taste a thing.",
		"%[1]s, the demo model's only food advice: whatever you pick, make extra. A real model would have a recipe.",
		"Food talk! %[1]s, the demo model cannot eat, but it likes where this is going.",
	}},
	{regexp.MustCompile(`(?i)\b(rain|rainy|weather|sunny|cold|forecast|snow|umbrella)\b`), []string{
		"%[1]s, the demo model cannot check the weather, but packing for rain never hurt anyone.",
		"No forecast from the demo model, %[1]s: a real model could look it up. Bring a jacket just in case.",
	}},
	{regexp.MustCompile(`(?i)\b(games?|board games?|movies?|movie night|cards)\b`), []string{
		"%[1]s, the demo model votes for %[2]s: nobody can spoil the ending.",
		"Team %[2]s, %[1]s! (The demo model has never played anything, but it sounds fun.)",
	}},
	{regexp.MustCompile(`(?i)\b(drive|driving|car|train|road|pick up|tent|pack|packing)\b`), []string{
		"Trip logistics, %[1]s! The demo model suggests a shared list, kept by anyone but the demo model.",
		"%[1]s, the demo model cannot drive or carry bags, but a real Clanker could remind everyone the day before.",
	}},
	{regexp.MustCompile(`(?i)\b(music|playlist|songs?|band|concert|speaker)\b`), []string{
		"%[1]s, the demo model's playlist advice: songs everyone can sing along to. A real model would name a few.",
		"Music duty is serious business, %[1]s. The demo model abstains: it only knows its script.",
	}},
	{regexp.MustCompile(`(?i)\b(photo|picture|pic|view|camera)\b`), []string{
		"%[1]s, that must be a great %[2]s. (Said by the demo model, which cannot see it.)",
	}},
	{regexp.MustCompile(`(?i)\b(haha|lol|funny|joke|hilarious)\b`), []string{
		"Ha, %[1]s. The demo model laughs on cue; its jokes are scripted.",
		"The demo model's sense of humour is scripted, %[1]s, but it appreciates yours.",
	}},
	{regexp.MustCompile(`(?i)\b(saturday|sunday|friday|tonight|tomorrow|weekend)\b`), []string{
		"%[1]s, %[2]s works for the demo model: it is free every day.",
		"Noted for %[2]s, %[1]s. A real Clanker would keep it in its summary; the demo model just nods.",
	}},
}

// Lively is the persona the demo server answers with: Reply's, plus what makes `clanker demo`
// look alive. Addressed, it says hello when asked to and answers on a topic it knows (food,
// weather, games, the trip, music, photos, jokes, days), and echoes like Reply otherwise. It greets in its own words when a conversation is switched to Active, asks to see
// an image someone just sent and then acknowledges it, and in Active mode (where the app asks
// about every message, not only those naming Clanker) joins in on messages about a topic it
// knows or with a question, saying each time that it is the demo model; other messages and
// the app's news checks get {"response": null}. It is as deterministic as Reply: the
// wording follows from the message, never from chance.
//
// Reply stays the quiet persona the tests' fake LLM server plays by default, so their
// expectations do not change with the demo's script.
func Lively(msgs []Message) string {
	msgs = withoutAppNotes(msgs)
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
	if images > 0 {
		return Reply(msgs)
	}
	h := fnv.New32a()
	h.Write([]byte(last))
	pick := h.Sum32()
	if addressedRE.MatchString(last) {
		if greetingRE.MatchString(said) {
			return answer(fmt.Sprintf("Hi everyone, and thanks %s! I am the Clanker demo model: write \"Clanker, ...\" and I answer, though I only pretend to think.", sender),
				fmt.Sprintf("Demo summary: %s asked Clanker (the demo model) to say hi.", sender))
		}
		if text, summary, ok := onTopic(sender, said, pick); ok {
			return answer(text, summary)
		}
		return Reply(msgs)
	}
	if m := imageLineRE.FindStringSubmatch(last); m != nil {
		out, _ := json.Marshal(map[string]string{"requestImage": m[2]})
		return string(out)
	}
	if text, summary, ok := onTopic(sender, said, pick); ok {
		return answer(text, summary)
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

// greetingRE matches a request to say hello.
var greetingRE = regexp.MustCompile(`(?i)\b(are you there|say hi|say hello|hello|hi|hey)\b`)

// onTopic is the demo model's line on the first known topic of the message, picked by pick.
func onTopic(sender, said string, pick uint32) (text, summary string, ok bool) {
	for _, tp := range topics {
		if word := tp.re.FindString(said); word != "" {
			return fmt.Sprintf(tp.lines[pick%uint32(len(tp.lines))], sender, word),
				fmt.Sprintf("Demo summary: %s talked about %s; the demo model joined in.", sender, word), true
		}
	}
	return "", "", false
}

// appNoteRE matches the app's own user-role notes in a prompt: the memory it keeps for the
// model, which comes after the settled history, and the count of older messages before it.
var appNoteRE = regexp.MustCompile(`^\[(MEMORY\b|\d+ older messages)`)

// withoutAppNotes drops the app's notes, so that "the last user message" is the last thing a
// person said: a stored summary mentions Clanker, and answering it would quote the summary.
func withoutAppNotes(msgs []Message) []Message {
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		if m.Role == "user" && len(m.Texts) > 0 && appNoteRE.MatchString(m.Texts[0]) && m.Images == 0 {
			continue
		}
		out = append(out, m)
	}
	return out
}
