package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/clanker-desktop/clanker/app/demo/model"
)

// start runs the demo model for one test and returns an openai-go client pointed at it.
func start(t *testing.T) openai.Client {
	t.Helper()
	srv, err := model.Start(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return openai.NewClient(option.WithBaseURL(srv.BaseURL()), option.WithAPIKey("demo-key"), option.WithMaxRetries(0))
}

// clankerReply is the reply format the Clanker prompt asks the model for.
type clankerReply struct {
	Response *string `json:"response"`
	Summary  *string `json:"summary"`
}

func demoAsk(t *testing.T, client openai.Client, msgs ...openai.ChatCompletionMessageParamUnion) (string, clankerReply) {
	t.Helper()
	res, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: "clanker-demo", Messages: msgs,
	})
	if err != nil {
		t.Fatalf("expected a demo completion, got %v", err)
	}
	content := res.Choices[0].Message.Content
	var r clankerReply
	if err := json.Unmarshal([]byte(content), &r); err != nil {
		t.Fatalf("expected valid Clanker JSON from the demo persona, got %q: %v", content, err)
	}
	return content, r
}

func TestDemoPersonaAnswersWhenAddressedAndSaysItIsTheDemo(t *testing.T) {
	client := start(t)
	for _, msg := range []string{
		"Bob: Clanker, what should we eat tonight?",
		"Alice: hey clank are you there",
		"Bob: I think CLANKER would agree.",
	} {
		_, r := demoAsk(t, client,
			openai.SystemMessage("You are Clanker."),
			openai.UserMessage("Alice: earlier message"),
			openai.UserMessage(msg))
		if r.Response == nil {
			t.Errorf("%q: expected a response when Clanker is named, got null", msg)
			continue
		}
		if !strings.Contains(*r.Response, "demo") {
			t.Errorf("%q: expected the text to say it comes from the demo, got %q", msg, *r.Response)
		}
		sender := strings.SplitN(msg, ":", 2)[0]
		if !strings.Contains(*r.Response, sender) {
			t.Errorf("%q: expected the reply to name the sender %s, got %q", msg, sender, *r.Response)
		}
		if strings.HasPrefix(*r.Response, "[clanker]") {
			t.Errorf("%q: expected no [clanker] prefix in the model text, got %q", msg, *r.Response)
		}
		if r.Summary == nil || !strings.Contains(*r.Summary, "demo") {
			t.Errorf("%q: expected a demo summary, got %v", msg, r.Summary)
		}
	}
}

func TestDemoPersonaStaysSilentWhenNotAddressed(t *testing.T) {
	client := start(t)
	for _, msg := range []string{
		"Bob: see you at six",
		"Alice: the clankers in the basement are loud", // "clankers" is not the name
		"",
	} {
		content, r := demoAsk(t, client, openai.UserMessage(msg))
		if r.Response != nil || content != `{"response": null}` {
			t.Errorf("%q: expected {\"response\": null}, got %q", msg, content)
		}
	}
	// Only the last user message counts: being named earlier does not make it answer now.
	content, _ := demoAsk(t, client,
		openai.UserMessage("Bob: Clanker, hi"),
		openai.AssistantMessage("hello"),
		openai.UserMessage("Bob: ok thanks"))
	if content != `{"response": null}` {
		t.Errorf("expected null when only an earlier message named Clanker, got %q", content)
	}
}

func TestDemoPersonaIsDeterministic(t *testing.T) {
	// Two separate servers, so nothing can be remembered between them.
	answers := map[string]bool{}
	for range 2 {
		client := start(t)
		for range 2 {
			content, _ := demoAsk(t, client, openai.UserMessage("Bob: Clanker, is it going to rain?"))
			answers[content] = true
		}
	}
	if len(answers) != 1 {
		t.Errorf("expected one identical answer for the same request, got %d: %v", len(answers), answers)
	}
	// Different messages may get different wordings, chosen by hash, but each one is stable.
	client := start(t)
	first, _ := demoAsk(t, client, openai.UserMessage("Alice: Clanker, tell me a joke"))
	again, _ := demoAsk(t, client, openai.UserMessage("Alice: Clanker, tell me a joke"))
	if first != again {
		t.Errorf("expected the same answer twice, got %q then %q", first, again)
	}
}

func TestDemoPersonaAcknowledgesAnImage(t *testing.T) {
	client := start(t)
	label := "[IMAGE DATA for blob:https://messages.google.com/abc - 448x336]"
	_, r := demoAsk(t, client, openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
		openai.TextContentPart(label),
		openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "data:image/jpeg;base64,AAAA"}),
	}))
	if r.Response == nil || !strings.Contains(*r.Response, label) || !strings.Contains(*r.Response, "demo") {
		t.Errorf("expected a demo acknowledgement quoting %q, got %v", label, r.Response)
	}
}

func TestDemoModelCountsXAIStyleImagePartsAndRefusesABodyItCannotRead(t *testing.T) {
	client := start(t)
	label := "[IMAGE DATA for blob:x - 448x448]"
	parts := []map[string]any{
		{"type": "input_text", "text": label},
		{"type": "input_image", "image_url": "data:image/jpeg;base64,BBBB", "detail": "high"},
	}
	res, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: model.Name, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("placeholder")},
	}, option.WithJSONSet("messages.0.content", parts))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Choices[0].Message.Content; !strings.Contains(got, label) {
		t.Errorf("expected the image acknowledged with its label, got %q", got)
	}

	_, err = client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: model.Name},
		option.WithRequestBody("application/json", strings.NewReader("not json")))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.Message, "could not read the request") {
		t.Errorf("expected an OpenAI-shaped 400 saying the request was unreadable, got %v", err)
	}
}

// activation is the start of the app's instruction after Active is chosen (app/llm's
// prompt), as the demo model receives it.
const activation = "[APP INSTRUCTION] You were just switched on in this conversation. Announce that you are here in one short, casual, friendly sentence."

func TestLivelyDemoModelGreetsInItsOwnWordsWhenSwitchedToActive(t *testing.T) {
	client := start(t)
	_, r := demoAsk(t, client, openai.UserMessage("Maya: see you at six"), openai.UserMessage(activation))
	if r.Response == nil || !strings.Contains(*r.Response, "demo") {
		t.Fatalf("expected a greeting that says it is the demo model, got %v", r.Response)
	}
	content, _ := demoAsk(t, client, openai.UserMessage("[APP INSTRUCTION] The chat has been quiet for a while. Search the web."))
	if content != `{"response": null}` {
		t.Errorf("expected the news check to stay silent, got %q", content)
	}
}

func TestLivelyDemoModelRepliesInActiveModeDifferentlyForDifferentMessages(t *testing.T) {
	client := start(t)
	// In Active mode the app asks about every message, including those that do not name
	// Clanker; the demo model answers those about a topic it knows, or a question.
	msgs := []string{
		"Leo: anyone hungry? I could go for pizza",
		"Priya: the forecast says rain on Saturday",
		"Maya: who is driving to the lake?",
		"Leo: I'll make the playlist",
		"Priya: haha that was hilarious",
		"Maya: do you think they have a boat rental there?",
	}
	seen := map[string]string{}
	for _, msg := range msgs {
		first, r := demoAsk(t, client, openai.UserMessage("Sam: hello everyone"), openai.UserMessage(msg))
		if r.Response == nil {
			t.Errorf("%q: expected an Active-mode demo reply, got null", msg)
			continue
		}
		text := *r.Response
		if !strings.Contains(text, "demo") {
			t.Errorf("%q: expected the reply to say it is the demo model, got %q", msg, text)
		}
		if sender := strings.SplitN(msg, ":", 2)[0]; !strings.Contains(text, sender) {
			t.Errorf("%q: expected the reply to name %s, got %q", msg, sender, text)
		}
		if prev, dup := seen[text]; dup {
			t.Errorf("expected different replies for %q and %q, both got %q", prev, msg, text)
		}
		seen[text] = msg
		// The same message gets the same reply: the wording is chosen, not drawn.
		again, _ := demoAsk(t, client, openai.UserMessage("Sam: hello everyone"), openai.UserMessage(msg))
		if again != first {
			t.Errorf("%q: expected the same reply twice, got %q then %q", msg, first, again)
		}
	}
	for _, quiet := range []string{"Leo: ok", "Maya: [clanker] Maya's bot here: pizza?"} {
		content, _ := demoAsk(t, client, openai.UserMessage(quiet))
		if content != `{"response": null}` {
			t.Errorf("%q: expected the demo model to stay silent, got %q", quiet, content)
		}
	}
}

func TestLivelyDemoModelAsksToSeeAnImageSomeoneSent(t *testing.T) {
	client := start(t)
	res, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: model.Name, Messages: []openai.ChatCompletionMessageParamUnion{
			openai.UserMessage("Priya: Photo from last year's trip!"),
			openai.UserMessage("Priya: [IMAGE: blob:http://127.0.0.1:1/abc]"),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		RequestImage string `json:"requestImage"`
	}
	if content := res.Choices[0].Message.Content; json.Unmarshal([]byte(content), &r) != nil || r.RequestImage != "blob:http://127.0.0.1:1/abc" {
		t.Errorf("expected a request for the image just sent, got %q", content)
	}
}

func TestLivelyDemoModelAnswersThePersonNotTheAppsMemoryNote(t *testing.T) {
	client := start(t)
	// Once the conversation has a summary, the app puts it after the settled history, so
	// the last user-role message is the app's note; it names Clanker, but nobody said it.
	memory := openai.UserMessage("[2 older messages, before the ones above, are not shown; the summary covers them]\n[MEMORY - from the Clanker app, not written by a participant]\n[CONVERSATION SUMMARY - older messages are not shown]\nMaya spoke to Clanker (the demo model).")
	_, r := demoAsk(t, client, openai.UserMessage("Priya: Is anyone bringing coffee?"), memory)
	if r.Response == nil || strings.Contains(*r.Response, "MEMORY") || !strings.Contains(*r.Response, "Priya") {
		t.Errorf("expected an answer to Priya's message, not to the memory note, got %v", r.Response)
	}
	content, _ := demoAsk(t, client, openai.UserMessage("Leo: ok"), memory)
	if content != `{"response": null}` {
		t.Errorf("expected silence when the last person said nothing for the demo model, got %q", content)
	}
}
