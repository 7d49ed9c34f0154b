package fakellm_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/clanker-desktop/clanker/tests/fakellm"
)

func responseParams(text string) responses.ResponseNewParams {
	return responses.ResponseNewParams{
		Model: "grok-4",
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
			responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleUser),
		}},
	}
}

func TestResponsesAPIReturnsScriptedOutputText(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.JSONReply("searched and found", "news summary").WithUsage(300, 20))
	res, err := client.Responses.New(context.Background(), responseParams("Alice: Clanker, any news?"))
	if err != nil {
		t.Fatalf("expected a response, got %v", err)
	}
	if got, want := res.OutputText(), `{"response":"searched and found","summary":"news summary"}`; got != want {
		t.Errorf("expected output text %q, got %q", want, got)
	}
	if res.Status != responses.ResponseStatusCompleted {
		t.Errorf("expected status completed, got %q", res.Status)
	}
	if res.Usage.InputTokens != 300 || res.Usage.OutputTokens != 20 || res.Usage.TotalTokens != 320 {
		t.Errorf("expected usage 300+20=320, got %+v", res.Usage)
	}
	if n := len(res.Output); n != 1 || res.Output[0].Type != "message" {
		t.Errorf("expected one message output item, got %d items", n)
	}
}

func TestResponsesAPITruncatedReplyIsIncomplete(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.Truncated(`{"response": "cut`))
	res, err := client.Responses.New(context.Background(), responseParams("x"))
	if err != nil {
		t.Fatalf("expected a response, got %v", err)
	}
	if res.Status != responses.ResponseStatusIncomplete || res.IncompleteDetails.Reason != "max_output_tokens" {
		t.Errorf("expected incomplete/max_output_tokens, got %q/%q", res.Status, res.IncompleteDetails.Reason)
	}
	if got := res.OutputText(); got != `{"response": "cut` {
		t.Errorf("expected the cut text, got %q", got)
	}
}

func TestResponsesAPIErrorReachesTheClient(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.OpenAIError(402, "billing_error", 402, "Payment required"))
	_, err := client.Responses.New(context.Background(), responseParams("x"))
	e := apiError(t, err)
	if e.StatusCode != 402 || e.Code != "402" || e.Message != "Payment required" {
		t.Errorf("expected 402 with numeric code 402, got %d %q %q", e.StatusCode, e.Code, e.Message)
	}
}

func TestRecordsResponsesRequestWithImageToolsAndInstructions(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.NullReply())
	const dataURL = "data:image/jpeg;base64,/9j/4AAQSkZJRg=="
	img := responses.ResponseInputContentParamOfInputImage(responses.ResponseInputImageDetailHigh)
	img.OfInputImage.ImageURL = openai.String(dataURL)
	params := responses.ResponseNewParams{
		Model:        "grok-4",
		Instructions: openai.String("You are Clanker."),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
			responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{
				responses.ResponseInputContentParamOfInputText("[IMAGE DATA for blob:https://messages.google.com/x - 448x448]"),
				img,
			}, responses.EasyInputMessageRoleUser),
		}},
		Tools:           []responses.ToolUnionParam{responses.ToolParamOfWebSearch(responses.WebSearchToolTypeWebSearch)},
		Temperature:     openai.Float(0.7),
		MaxOutputTokens: openai.Int(256),
	}
	if _, err := client.Responses.New(context.Background(), params); err != nil {
		t.Fatalf("expected a response, got %v", err)
	}
	r := srv.Requests()[0]
	if r.Endpoint != fakellm.EndpointResponses || r.Path != "/v1/responses" {
		t.Errorf("expected /v1/responses, got %s (%s)", r.Path, r.Endpoint)
	}
	if r.Instructions != "You are Clanker." || r.Model != "grok-4" {
		t.Errorf("expected instructions and model recorded, got %q %q", r.Instructions, r.Model)
	}
	imgs := r.Images()
	if len(imgs) != 1 || imgs[0].Type != "input_image" || imgs[0].ImageURL != dataURL || imgs[0].Detail != "high" {
		t.Errorf("expected one input_image with the data URL and detail high, got %+v", imgs)
	}
	if got := r.Messages[0].Parts[0]; got.Type != "input_text" || !strings.HasPrefix(got.Text, "[IMAGE DATA") {
		t.Errorf("expected the input_text label first, got %+v", got)
	}
	if got := r.ToolTypes(); len(got) != 1 || got[0] != "web_search" {
		t.Errorf("expected tools [web_search], got %v", got)
	}
	if r.MaxTokens == nil || *r.MaxTokens != 256 || r.MaxTokensField != "max_output_tokens" {
		t.Errorf("expected max_output_tokens 256, got %v via %q", r.MaxTokens, r.MaxTokensField)
	}
	if r.Temperature == nil || *r.Temperature != 0.7 {
		t.Errorf("expected temperature 0.7, got %v", r.Temperature)
	}
}

func TestResponsesStringInputIsRecordedAsOneUserMessage(t *testing.T) {
	srv, client := start(t, fakellm.Config{})
	srv.Enqueue(fakellm.NullReply())
	_, err := client.Responses.New(context.Background(), responses.ResponseNewParams{
		Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hello Clanker")},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if len(r.Messages) != 1 || r.Messages[0].Role != "user" || r.LastUserText() != "hello Clanker" {
		t.Errorf("expected one user message %q, got %+v", "hello Clanker", r.Messages)
	}
}

func TestModelsListsConfiguredModelsAndCanFail(t *testing.T) {
	srv, client := start(t, fakellm.Config{Models: []string{"grok-4", "grok-3-mini"}})
	page, err := client.Models.List(context.Background())
	if err != nil {
		t.Fatalf("expected a model list, got %v", err)
	}
	var ids []string
	for _, m := range page.Data {
		ids = append(ids, m.ID)
	}
	if got := strings.Join(ids, ","); got != "grok-4,grok-3-mini" {
		t.Errorf("expected models grok-4,grok-3-mini, got %s", got)
	}
	srv.EnqueueModels(fakellm.OpenAIError(401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided"))
	srv.Enqueue(fakellm.Text("generation queue untouched"))
	_, err = client.Models.List(context.Background())
	if e := apiError(t, err); e.StatusCode != 401 {
		t.Errorf("expected the scripted 401 from /models, got %d", e.StatusCode)
	}
	if srv.Pending() != 1 {
		t.Errorf("expected /models not to consume generation replies, %d left", srv.Pending())
	}
	r := srv.Requests()[0]
	if r.Method != http.MethodGet || r.Endpoint != fakellm.EndpointModels || r.APIKey() != "sk-test-123" {
		t.Errorf("expected GET /models with the API key recorded, got %s %s key %q", r.Method, r.Endpoint, r.APIKey())
	}
}

func TestEndpointsAreServedUnderV1RootAndConfiguredBasePath(t *testing.T) {
	srv, base := fakellm.StartNew(fakellm.Config{BasePath: "/api/openai/"})
	t.Cleanup(srv.Close)
	if want := srv.RootURL() + "/api/openai"; base != want {
		t.Errorf("expected base URL %s, got %s", want, base)
	}
	for _, b := range []string{base, srv.RootURL() + "/v1", srv.RootURL()} {
		srv.Enqueue(fakellm.Text("ok"))
		client := openai.NewClient(option.WithBaseURL(b), option.WithAPIKey("k"), option.WithMaxRetries(0))
		res, err := client.Chat.Completions.New(context.Background(), chatParams("x"))
		if err != nil {
			t.Errorf("base %s: expected a completion, got %v", b, err)
			continue
		}
		if res.Choices[0].Message.Content != "ok" {
			t.Errorf("base %s: expected content ok, got %q", b, res.Choices[0].Message.Content)
		}
	}
	var paths []string
	for _, r := range srv.Requests() {
		paths = append(paths, r.Path)
	}
	if got := strings.Join(paths, " "); got != "/api/openai/chat/completions /v1/chat/completions /chat/completions" {
		t.Errorf("expected the three paths recorded, got %s", got)
	}
}
