package fakellm_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/clanker-desktop/clanker/tests/fakellm"
)

type wantKey struct{}

// inMemory is an openai-go client whose requests the in-memory round tripper answers with the
// Reply carried in the call's context.
func inMemory() openai.Client {
	rt := fakellm.RoundTripper(func(ctx context.Context, r fakellm.Request) fakellm.Reply {
		if want, ok := ctx.Value(wantKey{}).(fakellm.Reply); ok {
			return want
		}
		return fakellm.Text("no reply chosen for " + r.LastUserText())
	})
	return openai.NewClient(option.WithBaseURL("http://127.0.0.1:9/v1"), option.WithAPIKey("k"),
		option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: rt}))
}

func TestRoundTripperPlaysRepliesInsideASynctestBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := inMemory()
		ctx := context.WithValue(context.Background(), wantKey{}, fakellm.JSONReply("hi", "s").WithLatency(30*time.Second))
		start := time.Now()
		res, err := client.Chat.Completions.New(ctx, chatParams("Bob: hello"))
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Choices[0].Message.Content; got != `{"response":"hi","summary":"s"}` {
			t.Errorf("content = %q, want the scripted JSON", got)
		}
		if waited := time.Since(start); waited != 30*time.Second {
			t.Errorf("the reply came after %v of fake time, want the scripted 30s latency", waited)
		}

		res, err = client.Chat.Completions.New(context.Background(), chatParams("Bob: anyone?"))
		if err != nil || res.Choices[0].Message.Content != "no reply chosen for Bob: anyone?" {
			t.Errorf("the answer func saw the decoded request: got %v, %v", res, err)
		}

		ctx = context.WithValue(context.Background(), wantKey{}, fakellm.OpenAIError(401, "invalid_request_error", "invalid_api_key", "bad key"))
		_, err = client.Chat.Completions.New(ctx, chatParams("x"))
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || apiErr.Message != "bad key" {
			t.Errorf("error reply: got %v, want an OpenAI 401 saying bad key", err)
		}

		hung, cancel := context.WithTimeout(context.WithValue(context.Background(), wantKey{}, fakellm.Hung()), time.Minute)
		defer cancel()
		if _, err := client.Chat.Completions.New(hung, chatParams("x")); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("hung reply: got %v, want the caller's deadline", err)
		}
	})
}
