package fakellm_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/clanker-desktop/clanker/tests/fakellm"
)

// apiError asserts err is an *openai.Error and returns it.
func apiError(t *testing.T, err error) *openai.Error {
	t.Helper()
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("expected an *openai.Error, got %T: %v", err, err)
	}
	return apiErr
}

// responseBody reads the body the client kept on the error.
func responseBody(t *testing.T, e *openai.Error) string {
	t.Helper()
	b, err := io.ReadAll(e.Response.Body)
	if err != nil {
		t.Fatalf("reading the error response body: %v", err)
	}
	return string(b)
}

func TestOpenAIShapedErrorsReachTheClientWithStatusAndFields(t *testing.T) {
	cases := []struct {
		name     string
		reply    fakellm.Reply
		status   int
		typ      string
		code     string // as openai-go exposes error.code
		codeJSON string // error.code exactly as sent
		message  string
	}{
		{"401 string code", fakellm.OpenAIError(401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided"),
			401, "invalid_request_error", "invalid_api_key", `"invalid_api_key"`, "Incorrect API key provided"},
		{"429 quota", fakellm.OpenAIError(429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota"),
			429, "insufficient_quota", "insufficient_quota", `"insufficient_quota"`, "You exceeded your current quota"},
		{"429 numeric code", fakellm.OpenAIError(429, "rate_limit", 429, "Too many requests"),
			429, "rate_limit", "429", `429`, "Too many requests"},
		{"403 null code", fakellm.OpenAIError(403, "permission_denied", nil, "Access denied"),
			403, "permission_denied", "", `null`, "Access denied"},
		{"404", fakellm.OpenAIError(404, "invalid_request_error", "model_not_found", "The model does not exist"),
			404, "invalid_request_error", "model_not_found", `"model_not_found"`, "The model does not exist"},
		{"500", fakellm.OpenAIError(500, "server_error", nil, "The server had an error"),
			500, "server_error", "", `null`, "The server had an error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, client := start(t, fakellm.Config{})
			srv.Enqueue(c.reply)
			_, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
			e := apiError(t, err)
			if e.StatusCode != c.status {
				t.Errorf("expected status %d, got %d", c.status, e.StatusCode)
			}
			if e.Type != c.typ || e.Message != c.message || e.Code != c.code {
				t.Errorf("expected type %q message %q code %q, got type %q message %q code %q",
					c.typ, c.message, c.code, e.Type, e.Message, e.Code)
			}
			var body struct {
				Error map[string]json.RawMessage `json:"error"`
			}
			raw := responseBody(t, e)
			if err := json.Unmarshal([]byte(raw), &body); err != nil {
				t.Fatalf("expected a JSON error body, got %q: %v", raw, err)
			}
			if got := string(body.Error["code"]); got != c.codeJSON {
				t.Errorf("expected error.code sent as %s, got %s", c.codeJSON, got)
			}
			for _, k := range []string{"message", "type", "param", "code"} {
				if _, ok := body.Error[k]; !ok {
					t.Errorf("expected error.%s in the OpenAI-shaped body %s", k, raw)
				}
			}
		})
	}
}

// xAI's "error" is a bare string, which openai-go v3 cannot decode into *openai.Error: the call
// fails with a JSON type error and no status. This test pins that, and shows that the status and
// body are still reachable through option.WithResponseInto, which is what the LLM client must use.
func TestXAIShapedErrorNeedsResponseIntoToRecoverStatusAndBody(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	const msg = "Incorrect API key provided: xa***yz. You can obtain an API key from https://console.x.ai."
	srv.Enqueue(fakellm.XAIError(400, "Client specified an invalid argument", msg))
	var httpRes *http.Response
	_, err := client.Chat.Completions.New(context.Background(), chatParams("x"), option.WithResponseInto(&httpRes))
	if err == nil {
		t.Fatal("expected an error for an xAI-shaped 400, got a completion")
	}
	var typeErr *json.UnmarshalTypeError
	if !errors.As(err, &typeErr) {
		t.Errorf("expected openai-go v3 to fail decoding the string error.error (*json.UnmarshalTypeError), got %T: %v; if it now yields *openai.Error, tell the LLM client", err, err)
	}
	if httpRes == nil || httpRes.StatusCode != 400 {
		t.Fatalf("expected WithResponseInto to expose status 400, got %v", httpRes)
	}
	raw, rerr := io.ReadAll(httpRes.Body)
	if rerr != nil {
		t.Fatal(rerr)
	}
	var body struct {
		Code  string `json:"code"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("expected a JSON xAI body, got %q: %v", raw, err)
	}
	if body.Error != msg || body.Code != "Client specified an invalid argument" {
		t.Errorf("expected xAI body {code, error:%q}, got %q", msg, raw)
	}
}

func TestAnthropicShapedErrorReachesTheClientWithStatusTypeAndMessage(t *testing.T) {
	for _, c := range []struct {
		status  int
		typ     string
		message string
	}{
		{401, "authentication_error", "invalid x-api-key"},
		{529, "overloaded_error", "Overloaded"},
	} {
		srv, client := start(t, fakellm.Config{})
		srv.Enqueue(fakellm.AnthropicError(c.status, c.typ, c.message))
		_, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
		e := apiError(t, err)
		if e.StatusCode != c.status || e.Type != c.typ || e.Message != c.message {
			t.Errorf("expected %d %q %q, got %d %q %q", c.status, c.typ, c.message, e.StatusCode, e.Type, e.Message)
		}
		var body struct {
			Type  string `json:"type"`
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		raw := responseBody(t, e)
		if err := json.Unmarshal([]byte(raw), &body); err != nil || body.Type != "error" || body.Error.Type != c.typ {
			t.Errorf("expected an Anthropic body {type:error, error:{type:%q}}, got %q (%v)", c.typ, raw, err)
		}
	}
}

func TestErrorWithNonJSONBodyKeepsStatusAndBody(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.Reply{Status: 502, RawBody: []byte("<html>Bad Gateway</html>"), ContentType: "text/html"})
	_, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
	e := apiError(t, err)
	if e.StatusCode != 502 {
		t.Errorf("expected status 502, got %d", e.StatusCode)
	}
	if got := responseBody(t, e); got != "<html>Bad Gateway</html>" {
		t.Errorf("expected the HTML body, got %q", got)
	}
}

func TestRetryAfterHeaderIsSentWithTheError(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.OpenAIError(429, "rate_limit_exceeded", "rate_limit_exceeded", "Slow down").WithRetryAfter(7))
	_, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
	e := apiError(t, err)
	if got := e.Response.Header.Get("Retry-After"); got != "7" {
		t.Errorf("expected Retry-After 7, got %q", got)
	}
}

func TestClientRetryHonoursScriptedRetryAfterThenSucceeds(t *testing.T) {
	srv, client := start(t, fakellm.Config{}, option.WithMaxRetries(1))
	srv.Enqueue(
		fakellm.OpenAIError(429, "rate_limit_exceeded", nil, "Slow down").WithHeader("Retry-After-Ms", "50"),
		fakellm.JSONReply("second time lucky", ""),
	)
	begin := time.Now()
	res, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
	if err != nil {
		t.Fatalf("expected the retry to succeed, got %v", err)
	}
	if elapsed := time.Since(begin); elapsed < 50*time.Millisecond {
		t.Errorf("expected the client to wait at least the 50 ms Retry-After-Ms, it took %v", elapsed)
	}
	if got := res.Choices[0].Message.Content; got != `{"response":"second time lucky"}` {
		t.Errorf("expected the second scripted reply, got %q", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Status != 429 {
		t.Errorf("expected two requests, the first answered 429, got %d", len(reqs))
	}
}
