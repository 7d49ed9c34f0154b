// Package engine is Clanker's domain and decision core: which mode a conversation is in,
// whether a message should make Clanker speak, when (reading delay, debounce, typing), whether a
// model result is still wanted, what to send and where, and when to visit inactive conversations.
//
// The package does no I/O of its own and imports no other Clanker package. The outside world
// reaches it only through three small interfaces it defines and others implement:
//
//   - Page receives commands for the Google Messages page (insert text, type one step, remove
//     what Clanker inserted, press Enter natively, navigate, fetch an image, banner, toast,
//     overlay, status pill). Results come back as CommandResult events carrying the command id.
//   - Store persists per-conversation state (mode, last processed message, last seen, timestamps
//     for news) and applies the model's context updates (summary, customization, profiles).
//     The engine writes before it relies on a value ("store-first").
//   - LLM answers requests. The engine calls it on its own goroutine and turns the answer into an
//     internal event tagged with the request generation, so a late answer can never overtake a
//     newer decision. app/llm's EngineAdapter implements it. When the model asks for an image,
//     the engine checks the image is in the conversation, fetches it through the page (giving up
//     after 20 s) and asks again with the bytes, or with the reason they are unavailable.
//
// # Concurrency contract
//
// One goroutine, Engine.Run, owns every piece of state. Every other goroutine talks to it with
// Engine.Send, which validates the event (page input is untrusted), enqueues it and never
// blocks. Timers are plain time.AfterFunc timers that enqueue events, which is why the engine
// can be tested exactly with testing/synctest: no clock interface is threaded through the code.
// Randomness comes from an injectable *rand.Rand so every delay is reproducible.
//
// Page, Store and LLM methods are called from the Run goroutine (LLM.Complete from a goroutine
// the engine starts per request). Page.Do and Store methods must return promptly; Page.Do must
// not wait for the page to act, it reports later with a CommandResult.
//
// # Invariants the tests prove
//
// Nothing is sent in a Deactivated, Uninitialized or automated conversation; every text starts
// with "[clanker] " and goes only into the conversation whose messages produced it; a user's
// draft is never overwritten (a ready reply is held until the box is empty); at most one reply
// per trigger; Clanker never answers itself and never ping-pongs with another Clanker without a
// human message in between. A message that addresses Clanker is answered or visibly released,
// never silently dropped; Clanker acts in a conversation only once its people were told the
// mode; and a message whose id was seen there before, or whose label time is older than the
// newest processed there, is never answered as new.
package engine
