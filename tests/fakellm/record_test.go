package fakellm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/clanker-desktop/clanker/app/demo/model"
	"github.com/clanker-desktop/clanker/tests/fakellm"
)

// clankerReply is the reply format the Clanker prompt asks the model for.
type clankerReply struct {
	Response *string `json:"response"`
	Summary  *string `json:"summary"`
}

func TestDefaultReplyIsTheDemoPersonaOverBothAPIs(t *testing.T) {
	_, client := start(t, fakellm.Config{})
	const ask = "Bob: Clanker, hello?"
	want := model.Reply([]model.Message{{Role: "user", Texts: []string{ask}}})
	chat, err := client.Chat.Completions.New(context.Background(), chatParams(ask))
	if err != nil {
		t.Fatal(err)
	}
	if got := chat.Choices[0].Message.Content; got != want {
		t.Errorf("chat completions: expected the demo persona's answer %q, got %q", want, got)
	}
	res, err := client.Responses.New(context.Background(), responseParams(ask))
	if err != nil {
		t.Fatal(err)
	}
	var r clankerReply
	if err := json.Unmarshal([]byte(res.OutputText()), &r); err != nil || r.Response == nil || res.OutputText() != want {
		t.Errorf("responses API: expected the demo persona's answer %q, got %q (%v)", want, res.OutputText(), err)
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
