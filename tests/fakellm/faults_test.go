package fakellm_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/clanker-desktop/clanker/tests/fakellm"
)

// waitIdle fails the test unless the server finishes handling every request soon.
func waitIdle(t *testing.T, srv *fakellm.Server) {
	t.Helper()
	if err := srv.WaitIdle(5 * time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestDroppedConnectionIsAClientErrorNotAnAPIError(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.Dropped())
	_, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
	if err == nil {
		t.Fatal("expected an error when the connection is dropped, got a completion")
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		t.Errorf("expected a transport error, got an API error with status %d", apiErr.StatusCode)
	}
	waitIdle(t, srv)
	if r := srv.Requests()[0]; r.Outcome != fakellm.OutcomeDropped {
		t.Errorf("expected the request recorded as dropped, got %q", r.Outcome)
	}
}

func TestConnectionDroppedMidBodyIsAClientError(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.DroppedMidBody(`{"response": "this answer never arrives in full"}`))
	_, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
	if err == nil {
		t.Fatal("expected an error when the body is cut off, got a completion")
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) && !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("expected an unexpected-EOF read error, got %v", err)
	}
	waitIdle(t, srv)
	if r := srv.Requests()[0]; r.Outcome != fakellm.OutcomeDropped || r.Status != 200 {
		t.Errorf("expected dropped after a 200 status line, got %q/%d", r.Outcome, r.Status)
	}
}

func TestHungServerAnswersNothingUntilTheClientTimesOut(t *testing.T) {
	// The timeout must be long enough for the request to reach the server on a loaded
	// machine; the server itself never answers, so the test still ends at the timeout.
	srv, client := start(t, fakellm.Config{}, option.WithRequestTimeout(2*time.Second))
	srv.Enqueue(fakellm.Hung())
	_, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("expected context.DeadlineExceeded from the client timeout, got %v", err)
	}
	waitIdle(t, srv)
	if r := srv.Requests()[0]; r.Outcome != fakellm.OutcomeCanceled || r.Status != 0 {
		t.Errorf("expected the hung request to end canceled with nothing sent, got %q/%d", r.Outcome, r.Status)
	}
}

func TestLatencyLongerThanClientTimeoutIsCanceledOnBothSides(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.JSONReply("too late", "").WithLatency(time.Hour))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := client.Chat.Completions.New(ctx, chatParams("x"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("expected context.DeadlineExceeded, got %v", err)
	}
	// The handler must stop waiting when the client goes away, not after an hour.
	waitIdle(t, srv)
	if r := srv.Requests()[0]; r.Outcome != fakellm.OutcomeCanceled {
		t.Errorf("expected the delayed request to end canceled, got %q", r.Outcome)
	}
}

func TestLatencyShorterThanClientTimeoutDelaysTheAnswer(t *testing.T) {
	srv, client := start(t, fakellm.Config{}, option.WithRequestTimeout(30*time.Second))
	srv.Enqueue(fakellm.JSONReply("worth the wait", "").WithLatency(150 * time.Millisecond))
	begin := time.Now()
	res, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
	if err != nil {
		t.Fatalf("expected a completion, got %v", err)
	}
	if elapsed := time.Since(begin); elapsed < 150*time.Millisecond {
		t.Errorf("expected the answer no sooner than the 150 ms latency, got it after %v", elapsed)
	}
	if got := res.Choices[0].Message.Content; got != `{"response":"worth the wait"}` {
		t.Errorf("expected the delayed reply, got %q", got)
	}
}

func TestSlowDripDeliversTheWholeBody(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.JSONReply("slowly", "").WithDrip(5*time.Millisecond, 40))
	res, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
	if err != nil {
		t.Fatalf("expected a completion, got %v", err)
	}
	if got := res.Choices[0].Message.Content; got != `{"response":"slowly"}` {
		t.Errorf("expected the dripped reply, got %q", got)
	}
}

func TestSlowDripBeyondClientTimeoutIsAClientError(t *testing.T) {
	srv, client := start(t, fakellm.Config{}, option.WithRequestTimeout(150*time.Millisecond))
	srv.Enqueue(fakellm.JSONReply("never finishes", "").WithDrip(time.Hour, 8))
	_, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
	if err == nil {
		t.Fatal("expected a timeout while the body drips, got a completion")
	}
	waitIdle(t, srv)
	if r := srv.Requests()[0]; r.Outcome != fakellm.OutcomeCanceled || r.Status != 200 {
		t.Errorf("expected canceled after a 200 status line, got %q/%d", r.Outcome, r.Status)
	}
}

func TestInvalidUTF8ContentIsSentAsRawBytes(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.InvalidUTF8())
	res, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
	if err != nil {
		t.Fatalf("expected openai-go to accept the body, got %v", err)
	}
	// openai-go replaces the bad bytes while decoding; what matters is that the wire carried them.
	if got := res.Choices[0].Message.Content; !strings.HasPrefix(got, `{"response": "bad `) {
		t.Errorf("expected the content to start like the script, got %q", got)
	}
	body := rawChatBody(t, srv.BaseURL(), fakellm.InvalidUTF8(), srv)
	if utf8.Valid(body) || !bytes.Contains(body, []byte("bad \xff\xfe bytes")) {
		t.Errorf("expected the raw bytes \\xff\\xfe in the body, got %q", body)
	}
}

// rawChatBody scripts reply and fetches a chat completion with net/http, returning the body bytes
// exactly as sent.
func rawChatBody(t *testing.T, base string, reply fakellm.Reply, srv *fakellm.Server) []byte {
	t.Helper()
	srv.Enqueue(reply)
	res, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMalformedEnvelopeIsAClientDecodeError(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.MalformedBody())
	_, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
	if err == nil {
		t.Fatal("expected a decode error for a non-JSON 200 body, got a completion")
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		t.Errorf("expected a decode error, got an API error with status %d", apiErr.StatusCode)
	}
}

func TestRequestWithInvalidJSONIsRejectedAndRecordedWithoutUsingTheQueue(t *testing.T) {
	srv, _ := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.Text("kept for later"))
	res, err := http.Post(srv.BaseURL()+"/chat/completions", "application/json", strings.NewReader(`{"model": `))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 400 || !strings.Contains(string(body), `"invalid_request_error"`) {
		t.Errorf("expected an OpenAI-shaped 400, got %d %s", res.StatusCode, body)
	}
	waitIdle(t, srv)
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].DecodeError == "" || reqs[0].Outcome != fakellm.OutcomeRejected {
		t.Errorf("expected one rejected request with a decode error, got %+v", reqs)
	}
	if srv.Pending() != 1 {
		t.Errorf("expected the scripted reply to stay queued, %d left", srv.Pending())
	}
}

func TestWrongAPIKeyGetsOpenAIShaped401(t *testing.T) {
	srv, client := start(t, fakellm.Config{APIKey: "the-right-key"})
	_, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
	e := apiError(t, err)
	if e.StatusCode != 401 || e.Code != "invalid_api_key" {
		t.Errorf("expected 401 invalid_api_key, got %d %q", e.StatusCode, e.Code)
	}
	_, err = client.Chat.Completions.New(context.Background(), chatParams("x"), option.WithAPIKey("the-right-key"))
	if err != nil {
		t.Errorf("expected the right key to be accepted, got %v", err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("expected both requests recorded, got %d", n)
	}
}

func TestUnknownPathIsAnOpenAIShaped404(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	_, err := client.Embeddings.New(context.Background(), openai.EmbeddingNewParams{
		Model: "m", Input: openai.EmbeddingNewParamsInputUnion{OfString: openai.String("x")},
	})
	e := apiError(t, err)
	if e.StatusCode != 404 || e.Code != "unknown_url" {
		t.Errorf("expected 404 unknown_url, got %d %q", e.StatusCode, e.Code)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("expected unknown paths not to be recorded, got %d requests", n)
	}
}

func TestCloseReleasesHungHandlers(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.Hung())
	done := make(chan error, 1)
	go func() {
		_, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
		done <- err
	}()
	if _, err := srv.WaitForRequests(1, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("expected Close to return while a handler hangs, it blocked for 5 s")
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("expected the hung call to fail when the server closed, got a completion")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("expected the hung call to end after Close, it is still waiting")
	}
}
