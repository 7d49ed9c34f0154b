// Package enginefake holds the one test double of each port the engine drives: Page (the
// Messages page, the bridge and the shell's native Enter), Store (the engine's store, and the
// memory and usage ports the LLM adapter reads and writes) and LLM (a model that answers with
// a function). The engine's own tests, the LLM adapter's end-to-end tests, the fault, crash and
// security rigs and the fuzz test all use these, so a change in what a port promises is made in
// one place. A test that needs a page or store that behaves differently sets a field here
// rather than writing another implementation; TestOneFakePerPort (in this package) fails when a
// second one appears in a test file elsewhere.
//
// The chaos suite's page (tests/chaos) is not a fake but a model of the page with the
// invariant checker built in, and stays there.
//
// It is test-only code under tests/: nothing in the app imports it.
package enginefake
