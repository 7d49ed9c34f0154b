package fakellm_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/clanker-desktop/clanker/tests/fakellm"
)

// start runs a fake server for one test and returns it with an openai-go client pointed at it.
// Retries are off so each scripted reply maps to exactly one client call.
func start(t *testing.T, cfg fakellm.Config, opts ...option.RequestOption) (*fakellm.Server, openai.Client) {
	t.Helper()
	srv, base := fakellm.StartNew(cfg)
	t.Cleanup(srv.Close)
	all := append([]option.RequestOption{
		option.WithBaseURL(base),
		option.WithAPIKey("sk-test-123"),
		option.WithMaxRetries(0),
	}, opts...)
	return srv, openai.NewClient(all...)
}

func chatParams(text string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    "fake-model",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(text)},
	}
}

func TestChatCompletionReturnsScriptedRepliesInOrder(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(
		fakellm.JSONReply("hello there", "they said hi"),
		fakellm.NullReply(),
		fakellm.Text("just prose, no JSON"),
	)
	want := []string{
		`{"response":"hello there","summary":"they said hi"}`,
		`{"response": null}`,
		"just prose, no JSON",
	}
	for i, w := range want {
		res, err := client.Chat.Completions.New(context.Background(), chatParams("Alice: hi"))
		if err != nil {
			t.Fatalf("call %d: expected a completion, got error %v", i+1, err)
		}
		if got := res.Choices[0].Message.Content; got != w {
			t.Errorf("call %d: expected content %q, got %q", i+1, w, got)
		}
		if got := res.Choices[0].FinishReason; got != "stop" {
			t.Errorf("call %d: expected finish_reason stop, got %q", i+1, got)
		}
	}
	if n := srv.Pending(); n != 0 {
		t.Errorf("expected the queue to be used up, %d replies left", n)
	}
}

func TestChatCompletionFallsBackToDefaultWhenQueueIsEmpty(t *testing.T) {
	def := fakellm.Text("default answer")
	srv, client := start(t, fakellm.Config{Default: &def})
	srv.Enqueue(fakellm.Text("scripted"))
	for i, want := range []string{"scripted", "default answer", "default answer"} {
		res, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
		if err != nil {
			t.Fatalf("call %d: unexpected error %v", i+1, err)
		}
		if got := res.Choices[0].Message.Content; got != want {
			t.Errorf("call %d: expected %q, got %q", i+1, want, got)
		}
	}
	srv.SetDefault(fakellm.Text("changed default"))
	res, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
	if err != nil || res.Choices[0].Message.Content != "changed default" {
		t.Fatalf("expected the new default %q after SetDefault, got %+v, %v", "changed default", res, err)
	}
}

func TestTruncatedReplyReportsFinishReasonLength(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	cut := `{"response": "a long answer that got cut off by the tok`
	srv.Enqueue(fakellm.Truncated(cut))
	res, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
	if err != nil {
		t.Fatalf("expected a completion, got error %v", err)
	}
	if got := res.Choices[0].FinishReason; got != "length" {
		t.Errorf("expected finish_reason length, got %q", got)
	}
	if got := res.Choices[0].Message.Content; got != cut {
		t.Errorf("expected the cut content %q, got %q", cut, got)
	}
}

func TestUsageIsScriptableAndOtherwiseReported(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.Text("hi").WithUsage(1234, 56), fakellm.Text("hi"))
	res, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Usage.PromptTokens != 1234 || res.Usage.CompletionTokens != 56 || res.Usage.TotalTokens != 1290 {
		t.Errorf("expected usage 1234+56=1290, got %d+%d=%d", res.Usage.PromptTokens, res.Usage.CompletionTokens, res.Usage.TotalTokens)
	}
	res, err = client.Chat.Completions.New(context.Background(), chatParams("x"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Usage.PromptTokens <= 0 || res.Usage.CompletionTokens <= 0 {
		t.Errorf("expected positive default usage, got %+v", res.Usage)
	}
}

func TestMalformedAndOddContentArriveByteForByte(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	cases := []struct {
		name  string
		reply fakellm.Reply
		check func(string) bool
	}{
		{"malformed JSON", fakellm.Malformed(), func(s string) bool {
			return strings.HasPrefix(s, `{"response"`) && !json.Valid([]byte(s))
		}},
		{"fenced JSON", fakellm.Text("```json\n{\"response\": \"hi\"}\n```"), func(s string) bool {
			return s == "```json\n{\"response\": \"hi\"}\n```"
		}},
		{"huge", fakellm.Huge(1 << 20), func(s string) bool { return len(s) == 1<<20 && json.Valid([]byte(s)) }},
	}
	for _, c := range cases {
		srv.Enqueue(c.reply)
		res, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
		if err != nil {
			t.Errorf("%s: expected a completion, got error %v", c.name, err)
			continue
		}
		if got := res.Choices[0].Message.Content; !c.check(got) {
			t.Errorf("%s: content not as scripted, got %d bytes starting %q", c.name, len(got), got[:min(len(got), 80)])
		}
	}
}

func TestRecordsChatRequestContents(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.NullReply())
	const dataURL = "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBD"
	params := openai.ChatCompletionNewParams{
		Model: "grok-test",
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("You are Clanker."),
			openai.UserMessage("[CONVERSATION SUMMARY - older messages not shown]\nthey planned a trip"),
			openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
				openai.TextContentPart("[IMAGE DATA for blob:https://messages.google.com/abc - 448x336]"),
				openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: dataURL, Detail: "high"}),
			}),
			openai.AssistantMessage("earlier reply"),
			openai.UserMessage("Bob: Clanker, what do you think?"),
		},
		MaxTokens:   openai.Int(512),
		Temperature: openai.Float(0.7),
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONObject: &openai.ResponseFormatJSONObjectParam{},
		},
		Tools: []openai.ChatCompletionToolUnionParam{
			openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "lookup"}),
		},
	}
	if _, err := client.Chat.Completions.New(context.Background(), params); err != nil {
		t.Fatalf("expected a completion, got %v", err)
	}
	reqs, err := srv.WaitForRequests(1, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/v1/chat/completions" || r.Endpoint != fakellm.EndpointChat {
		t.Errorf("expected POST /v1/chat/completions, got %s %s (%s)", r.Method, r.Path, r.Endpoint)
	}
	if r.Authorization() != "Bearer sk-test-123" || r.APIKey() != "sk-test-123" {
		t.Errorf("expected Authorization %q, got %q", "Bearer sk-test-123", r.Authorization())
	}
	if r.Model != "grok-test" {
		t.Errorf("expected model grok-test, got %q", r.Model)
	}
	roles := []string{}
	for _, m := range r.Messages {
		roles = append(roles, m.Role)
	}
	if got, want := strings.Join(roles, ","), "system,user,user,assistant,user"; got != want {
		t.Errorf("expected roles %s, got %s", want, got)
	}
	if got := r.Messages[0].Text(); got != "You are Clanker." {
		t.Errorf("expected system text, got %q", got)
	}
	imgs := r.Images()
	if len(imgs) != 1 || imgs[0].ImageURL != dataURL || imgs[0].Detail != "high" || imgs[0].Type != "image_url" {
		t.Errorf("expected one image_url part with the data URL and detail high, got %+v", imgs)
	}
	if got := r.Messages[2].Parts[0].Text; !strings.HasPrefix(got, "[IMAGE DATA for blob:") {
		t.Errorf("expected the image label text part first, got %q", got)
	}
	if got := r.LastUserText(); got != "Bob: Clanker, what do you think?" {
		t.Errorf("expected last user text, got %q", got)
	}
	if r.MaxTokens == nil || *r.MaxTokens != 512 || r.MaxTokensField != "max_tokens" {
		t.Errorf("expected max_tokens 512, got %v via %q", r.MaxTokens, r.MaxTokensField)
	}
	if r.Temperature == nil || *r.Temperature != 0.7 {
		t.Errorf("expected temperature 0.7, got %v", r.Temperature)
	}
	if !strings.Contains(string(r.ResponseFormat), `"json_object"`) {
		t.Errorf("expected response_format json_object, got %s", r.ResponseFormat)
	}
	if got := r.ToolTypes(); len(got) != 1 || got[0] != "function" || !strings.Contains(string(r.Tools[0]), `"lookup"`) {
		t.Errorf("expected one function tool named lookup, got %v %s", got, r.Tools)
	}
	// The client can finish reading before the handler records its outcome; wait for it.
	if err := srv.WaitIdle(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if r = srv.Requests()[0]; r.Outcome != fakellm.OutcomeAnswered || r.Status != 200 {
		t.Errorf("expected outcome answered/200, got %q/%d", r.Outcome, r.Status)
	}
}

func TestAskForLastImageRequestsTheLastReferenceShown(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.AskForLastImage(), fakellm.AskForLastImage())
	params := openai.ChatCompletionNewParams{
		Model: "fake-model",
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("rules"),
			openai.UserMessage("Maya: [IMAGE: blob:http://127.0.0.1:1/first]\nLeo: [IMAGE: blob:http://127.0.0.1:1/second] a view"),
			openai.UserMessage("Leo: clanker, what is in the picture?"),
		},
	}
	res, err := client.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Choices[0].Message.Content, `{"requestImage":"blob:http://127.0.0.1:1/second"}`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	res, err = client.Chat.Completions.New(context.Background(), chatParams("no picture here"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Choices[0].Message.Content, `{"response": null}`; got != want {
		t.Errorf("without an image: got %q, want %q", got, want)
	}
}
