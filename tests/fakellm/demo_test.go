package fakellm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/clanker-desktop/clanker/tests/fakellm"
)

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
	_, client := start(t, fakellm.Config{})
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
	_, client := start(t, fakellm.Config{})
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
		_, client := start(t, fakellm.Config{})
		for range 2 {
			content, _ := demoAsk(t, client, openai.UserMessage("Bob: Clanker, is it going to rain?"))
			answers[content] = true
		}
	}
	if len(answers) != 1 {
		t.Errorf("expected one identical answer for the same request, got %d: %v", len(answers), answers)
	}
	// Different messages may get different wordings, chosen by hash, but each one is stable.
	_, client := start(t, fakellm.Config{})
	first, _ := demoAsk(t, client, openai.UserMessage("Alice: Clanker, tell me a joke"))
	again, _ := demoAsk(t, client, openai.UserMessage("Alice: Clanker, tell me a joke"))
	if first != again {
		t.Errorf("expected the same answer twice, got %q then %q", first, again)
	}
}

func TestDemoPersonaAcknowledgesAnImage(t *testing.T) {
	_, client := start(t, fakellm.Config{})
	label := "[IMAGE DATA for blob:https://messages.google.com/abc - 448x336]"
	_, r := demoAsk(t, client, openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
		openai.TextContentPart(label),
		openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "data:image/jpeg;base64,AAAA"}),
	}))
	if r.Response == nil || !strings.Contains(*r.Response, label) || !strings.Contains(*r.Response, "demo") {
		t.Errorf("expected a demo acknowledgement quoting %q, got %v", label, r.Response)
	}
}

func TestDemoPersonaOverTheResponsesAPI(t *testing.T) {
	_, client := start(t, fakellm.Config{})
	res, err := client.Responses.New(context.Background(), responseParams("Bob: Clanker, hello?"))
	if err != nil {
		t.Fatal(err)
	}
	var r clankerReply
	if err := json.Unmarshal([]byte(res.OutputText()), &r); err != nil || r.Response == nil {
		t.Errorf("expected a demo Clanker reply, got %q (%v)", res.OutputText(), err)
	}
}

func TestXAIStyleImagePartsInChatAreRecorded(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.NullReply())
	// Clients written for xAI send its input_text/input_image parts even on chat completions;
	// the fake records them like the standard parts.
	parts := []map[string]any{
		{"type": "input_text", "text": "[IMAGE DATA for blob:x - 448x448]"},
		{"type": "input_image", "image_url": "data:image/jpeg;base64,BBBB", "detail": "high"},
	}
	_, err := client.Chat.Completions.New(context.Background(), chatParams("placeholder"),
		option.WithJSONSet("messages.0.content", parts))
	if err != nil {
		t.Fatal(err)
	}
	imgs := srv.Requests()[0].Images()
	if len(imgs) != 1 || imgs[0].Type != "input_image" || imgs[0].ImageURL != "data:image/jpeg;base64,BBBB" || imgs[0].Detail != "high" {
		t.Errorf("expected the xAI input_image part with its data URL, got %+v", imgs)
	}
}

func TestConcurrentRequestsAreAllRecordedAndEachGetsOneScriptedReply(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	const n = 20
	for i := range n {
		srv.Enqueue(fakellm.Text(fmt.Sprintf("reply %d", i)))
	}
	var wg sync.WaitGroup
	got := make(chan string, n)
	for i := range n {
		wg.Go(func() {
			res, err := client.Chat.Completions.New(context.Background(), chatParams(fmt.Sprintf("msg %d", i)))
			if err != nil {
				t.Errorf("request %d: %v", i, err)
				return
			}
			got <- res.Choices[0].Message.Content
		})
	}
	reqs, err := srv.WaitForRequests(n, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(got)
	seen := map[string]bool{}
	for c := range got {
		if seen[c] {
			t.Errorf("expected each scripted reply once, %q came twice", c)
		}
		seen[c] = true
	}
	if len(seen) != n || len(reqs) != n {
		t.Errorf("expected %d distinct replies and %d requests, got %d and %d", n, n, len(seen), len(reqs))
	}
	for i, r := range reqs {
		if r.Seq != i+1 {
			t.Errorf("expected sequence numbers 1..%d in order, request %d has %d", n, i, r.Seq)
		}
	}
}

func TestWaitForRequestsReportsShortfall(t *testing.T) {
	srv, _ := start(t, fakellm.Config{})
	_, err := srv.WaitForRequests(1, 20*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "got 0") {
		t.Errorf("expected an error saying 0 requests arrived, got %v", err)
	}
}

func TestRequestsReturnsCopiesAndResetForgetsEverything(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.NullReply())
	if _, err := client.Chat.Completions.New(context.Background(), chatParams("Bob: original")); err != nil {
		t.Fatal(err)
	}
	mine := srv.Requests()
	mine[0].Messages[0].Parts[0].Text = "tampered"
	mine[0].Header.Set("Authorization", "tampered")
	again := srv.Requests()[0]
	if again.LastUserText() != "Bob: original" || again.APIKey() != "sk-test-123" {
		t.Errorf("expected the recording unchanged by edits to a copy, got text %q key %q", again.LastUserText(), again.APIKey())
	}
	srv.Enqueue(fakellm.Text("left over"))
	srv.Reset()
	if n := len(srv.Requests()); n != 0 || srv.Pending() != 0 {
		t.Errorf("expected Reset to clear requests and queue, got %d requests and %d pending", n, srv.Pending())
	}
}
