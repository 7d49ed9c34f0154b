// Package model is the demo model `clanker demo` talks to: a small OpenAI-compatible Chat
// Completions server on loopback whose persona (Reply) is clearly fake and deterministic. It
// lets a new user see Clanker answer without an account or an API key, through the same LLM
// client, prompt and reply parsing a real endpoint gets.
//
// The persona answers {"response": null} unless the last user message addresses Clanker (or
// Clank) by name; then it answers valid Clanker JSON whose text says it is the demo model and
// quotes the message, plus a summary. A request carrying an image gets an acknowledgement of
// the image. Identical requests always get identical answers; nothing is random.
//
// The server answers with Lively, which adds what makes the demo look alive: its own greeting
// when a conversation is switched to Active, a look at images people send, and replies to
// messages on topics it knows in Active mode, each saying it is the demo model. The tests'
// fake LLM server (tests/fakellm) plays the quiet Reply as its default, so tests that do not
// ask for the lively persona keep their expectations.
package model
