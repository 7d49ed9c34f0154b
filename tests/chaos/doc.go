// Package chaos holds the seeded chaos simulation: a random driver that runs the real engine
// (app/engine) on the real SQLite store (app/sqlite, a file in a temporary directory) against a
// model of the Google Messages page and a scripted model, and checks the invariants of
// DESIGN.md after every step. Everything lives in the test files; this file only exists so the
// directory is a package that `go vet` and `go build ./...` see.
//
// Run it with `go test ./tests/chaos -seeds=N` (default 100) to play seeds 1..N, `-base=B` to
// play seeds B+1..B+N instead (`make chaos BASE=B SEEDS=N`), one seed with `-seed=S`, and
// `-events=N` to change the session length. With CHAOS_TRACE=1 in the environment the engine's
// and the LLM client's debug log goes to stderr (use it with -seed and -shrink=0).
package chaos
