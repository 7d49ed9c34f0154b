// Package simctl drives the Google Messages simulator (app/demo/sim) from tests: a JSON control
// API over HTTP, mounted on the simulator's app origin, and Control, its typed client. The app
// itself never serves this API; `clanker demo` shows the simulator without it.
//
//	s, err := simctl.Start(sim.Options{Seed: 1}) // a sim.Server with the control API; defer s.Close()
//	ctl := s.Control()                           // simctl.NewControl(url) for another process (make sim)
//
// Each Control method is one HTTP call to one method of the simulator's Go API (see package sim);
// errors carry the server's sentence.
//
// # HTTP control API (loopback clients only; JSON bodies; errors are 4xx with a plain sentence)
//
//	GET  /__sim/conversations                 -> [Conversation]
//	POST /__sim/conversations                 {name?, participants[], pinned?, muted?, rcs?, archived?} -> Conversation
//	GET  /__sim/conversations/{id}/messages   -> [Message]
//	POST /__sim/deliver                       {conversation, message: Message} -> Message
//	POST /__sim/draft                         {text}
//	POST /__sim/click                         {conversation}
//	POST /__sim/load-older                    {count}
//	POST /__sim/behave                        Behaviour {kind, n?, ms?, conversation?, query?, seed?}
//	GET  /__sim/truth                         -> [TruthRecord] (with Options.Truth)
//	POST /__sim/swap-pending                  {mode: "in-place"|"replace"} -> [Swap]
//	GET  /__sim/sent, /__sim/rejected         -> [Send]
//	POST /__sim/reset
//	POST /__sim/variant                       {variants: ["slow", ...]}
//	POST /__sim/linger                        {ms}: how long the linger variant keeps old panes
//	POST /__sim/hold, /__sim/release          pages stay blank (no app drawn) until released
//	GET  /__sim/status                        -> Status
//
// An unknown conversation is 404, a page command with no page connected is 409 and any other bad
// input is 400.
package simctl
