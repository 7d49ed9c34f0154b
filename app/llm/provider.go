// Package llm is Clanker's client for OpenAI-compatible chat models: it
// builds the prompt from a conversation's stored memory and recent messages,
// adapts the request to the provider (xAI, OpenAI, Anthropic or a generic
// OpenAI-compatible server), sends it with openai-go, classifies failures
// straight into the engine's error classes (*engine.LLMError), and turns the
// model's output into a validated reply.
//
// EngineAdapter is how the engine uses it: it implements engine.LLM (the llm package imports the
// engine's domain types, never the reverse), loads a conversation's memory through
// engine.MemoryStore, records tokens through engine.UsageRecorder, has the image bytes the engine
// fetched prepared through engine.ImagePreparer, and reports failures as *engine.LLMError so the
// engine knows whether to deactivate, toast once or toast every time. It imports no other
// adapter: app/run wires the ports.
package llm

import (
	"net/url"
	"strings"
)

// Provider is the API dialect chosen from the endpoint's host name.
type Provider int

// Providers. Generic covers every other OpenAI-compatible server (local
// llama.cpp, Ollama, OpenRouter, ...): it gets the plain Chat Completions
// body and no provider-specific extras.
const (
	Generic Provider = iota
	OpenAI
	XAI
	Anthropic
)

func (p Provider) String() string {
	switch p {
	case OpenAI:
		return "openai"
	case XAI:
		return "xai"
	case Anthropic:
		return "anthropic"
	default:
		return "generic"
	}
}

// DetectProvider picks the dialect from the endpoint's host: "x.ai"/"xai"
// is xAI, "anthropic"/"claude" is Anthropic, "openai" is OpenAI, anything
// else is Generic. An endpoint that does not parse is Generic.
func DetectProvider(endpoint string) Provider {
	u, err := url.Parse(strings.TrimSpace(endpoint))
	if err != nil {
		return Generic
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case strings.Contains(host, "x.ai") || strings.Contains(host, "xai"):
		return XAI
	case strings.Contains(host, "anthropic") || strings.Contains(host, "claude"):
		return Anthropic
	case strings.Contains(host, "openai"):
		return OpenAI
	default:
		return Generic
	}
}

// SupportsWebSearch reports whether Clanker can offer web search for this
// provider. The settings window shows the search toggle as unavailable for
// generic endpoints, because there is no common way to ask them for it.
func (p Provider) SupportsWebSearch() bool { return p != Generic }

// WebSearchNote is the sentence the settings window shows next to the web
// search toggle for this provider.
func (p Provider) WebSearchNote() string {
	switch p {
	case XAI:
		return "xAI: searches use the Responses API web_search tool (billed per search)."
	case OpenAI:
		return "OpenAI: searches use web_search_options and need a search-capable model."
	case Anthropic:
		return "Anthropic: searches use the web_search tool (billed per search)."
	default:
		return "This endpoint is not a known provider, so web search is not available."
	}
}

// SupportsJSONMode reports whether the provider honours
// response_format {"type": "json_object"}. Anthropic's compatibility layer
// ignores it and generic servers may reject it, so they get none; the reply
// parser copes with prose either way.
func (p Provider) SupportsJSONMode() bool { return p == OpenAI || p == XAI }

// usesResponsesAPI reports whether a request goes to /responses: only xAI
// with web search on, which asks for xAI's web_search tool through its
// Responses API; every other request is a chat completion.
func (p Provider) usesResponsesAPI(webSearch bool) bool { return p == XAI && webSearch }
