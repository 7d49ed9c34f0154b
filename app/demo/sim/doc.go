// Package sim is a deterministic fake of the Google Messages web app (messages.google.com/web),
// served on loopback. `clanker demo` shows it in the app window; the bridge's browser tests and
// the full-app tests run against it too.
//
// It reproduces the Messages DOM as the bridge knows it (sidebar, header, message rows with the
// aria-label grammar, compose box, SPA navigation, windowing, tmp_ id swaps) and the one property
// of the real page that shapes Clanker's design: sending accepts only trusted input.
//
// # Go API
//
//	s, err := sim.Start(sim.Options{Seed: 1}) // two listeners on 127.0.0.1:0; defer s.Close()
//	s.URL()                 // app origin, http://127.0.0.1:PORT
//	s.AppURL()              // landing page, s.URL()+"/web/conversations"
//	s.ConversationURL(id)   // s.AppURL()+"/"+id
//	s.AccountsURL()         // second origin serving the fake Google sign-in popup (/signin)
//
// Options: Seed (ids and label delays), Addr/AccountsAddr, Start (clock, default February 3, 2026
// at 6:41 PM, +1 minute per message), Empty (no demo content), Window (DOM rows, default 35),
// ConfirmAfter (tmp_ → UUID delay, default 1 s, negative = only on SwapPendingIDs), SwapMode
// (automatic swaps: SwapInPlace default, or SwapReplace), SlowDelay (VariantSlow, default 3 s),
// Variants, Logger, Mount (extra routes on the app origin; the tests mount their JSON control API
// there, which the app itself never serves), Script (scripted friends, off by default), LingerMS
// (VariantLinger, default 400), Truth (the page reports its ground truth, see below).
//
// # Script (the demo's friends)
//
// With Options.Script (`clanker demo` passes DemoScript()) friends write by themselves: the
// script creates its group (DemoGroup, "Weekend trip") with some history at the start, then
// sends its timed lines on the server's timers (within the first minute someone addresses
// Clanker, someone else chats, a photo arrives; more over the next minutes). The app tells it
// Clanker's mode with ClankerMode(conv, mode): the first switch of the group to Available or
// Active makes a friend speak up a few seconds later. ScriptGroup() is the group's id. Without a script, the default, nothing changes unless a
// caller changes it, so tests stay deterministic; the script's own timing is tested under
// testing/synctest on a server that does not listen.
//
// State changes, in process (errors are sentences; a missing conversation is an
// UnknownConversationError):
//
//	CreateConversation(NewConversation{Name, Participants, Pinned, Muted, RCS, Archived}) (Conversation, error)
//	Conversations()             // sidebar order, with Snippet, Unread, Time; archived ones last
//	Messages(conv) ([]Message, error)            // every stored row, not only the DOM window
//	Deliver(conv, Message{From, Text, Image, ReplyTo, Tombstone, Attachment, TimeOnlyLabel, Status})
//	Deliver(conv, Message{Reaction: &Reaction{Target: msgID, From: "Jane Doe", Kind: "love"}})
//	UserTypesDraft(text)        // the page focuses the compose box, sets the draft, fires input
//	ClickConversation(conv)     // the page calls .click() on the sidebar link (SPA navigation)
//	LoadOlder(n)                // the page inserts up to n older rows at the top
//	Behave(Behaviour{Kind, N, MS, Conversation, Query, Seed}) // one page behaviour (below)
//	Truth() / TruthComplete(n)  // the page's ground-truth records (Options.Truth)
//	SwapPendingIDs(SwapInPlace|SwapReplace) ([]Swap, error)
//	Sent() / Rejected() []Send  // {Conversation, Text, Trusted, Via, MessageID, At, Wall}
//	Reset()                     // clock, ids, demo content, logs, variants, sign-in; pages re-render
//	SetVariant(vs ...Variant)   // replace active variants; pages re-render
//	SetLinger(ms)               // how long VariantLinger keeps old panes; pages re-render
//	HoldPages() / ReleasePages() // pages loaded while held stay blank until released
//	Status() Status             // SignedIn, Variants, OpenConversation, SignInOrigin, Pages, Pending
//
// UserTypesDraft, ClickConversation, LoadOlder and Behave are carried out by the page, so they
// fail with ErrNoPage when no page is connected; they return when the command is sent, so wait on
// the DOM after.
//
// # Page behaviours and ground truth (issue 28)
//
// Behaviour variants make the page act as a virtual-scrolling chat page may: recycle (a view
// cache: a fixed rendered range that slides, elements of leaving rows reused for entering ones,
// some inserted still showing their old message), index-keyed (elements keyed by position,
// rewritten in place), linger (old panes stay hidden with aria-hidden and display:none after a
// switch, the new pane drawn first, its header late), reuse-pane (a switch rewrites the pane's
// elements; the address changes before or after the rows), noise (date separators, a typing
// indicator, placeholder rows whose core has no id until filled), bidi-names (names drawn with
// isolates, direction marks and no-break spaces), labels-change (a live row's label is first
// "Received at 3:04 PM.", then the full one). Behave runs one-shot behaviours: scroll-back,
// scroll-down, jump-live, rerender-list (drawn again with N older rows on top), rerender-pane
// (the old pane lingering MS), reinsert (the list out of the document for MS), move-row,
// open-at (a conversation opened N rows above its live end, as a search hit opens it),
// switch-address-late (reuse-pane's late address as a scripted step), typing,
// search (results drawn with the sidebar's row markup, archived conversations too, the list
// hidden; an empty query closes it). A view away from its live end has a spacer below its rows
// and a jump-to-newest button, as a virtual scroller has.
//
// With Options.Truth the page reports what really happened (Truth): each visit ("open" at the
// live end or at a hit, "leave"), when the view reached the live end, every message's arrival
// and whether the page drew it at once at the live end of the open conversation (Shown: a
// message the bridge owes Go), the snippets the real sidebar drew, and every behaviour carried
// out, each stamped with the page's clock (performance.timeOrigin + now). The stored messages
// and conversations are the rest of the truth: which conversation every id belongs to, and
// names as a person reads them (PlainName; stored names are plain).
//
// NewPlan(seed, n) is the generator: a combination of behaviour variants and n steps
// (messages, reactions, switches, quick switches, behaviours, pauses, a first-time writer)
// over a cast whose names are hard to read right (Arabic and Hebrew, emoji sequences, a comma,
// a period); Plan.Setup creates the cast and Plan.Play runs a step. tests/browser/pagechaos
// plays plans through the bridge.
//
// Compose variants (issue 27): clear-silently empties the box after a send without an input
// event; restore-draft puts a conversation's unsent draft back by script, with no event, when
// it is opened again.
//
// The page's own endpoints (/__sim/page/...) serve its state, messages, an event stream
// (Server-Sent Events), send reports, open-conversation reports and the sign-in report;
// GET /__sim/media/{photo.jpg|chart.png|wave.gif} serves the generated images.
//
// # Page behaviour
//
//   - Paths: /web/conversations (landing, nothing selected), /web/conversations/<id>, and
//     /web/authentication (pairing page when signed out). Sidebar clicks (trusted or .click())
//     call pushState and swap the pane; back/forward (popstate) re-renders. The old rows leave the
//     DOM synchronously with the URL change; the new ones follow after one fetch (~ms), or after
//     SlowDelay with VariantSlow.
//   - Rows: <mws-message-wrapper data-e2e-message-wrapper msg-id> > <div
//     data-e2e-message-wrapper-core data-e2e-message-id data-e2e-message-outgoing> holding, in DOM
//     order: an optional quoted parent (div.embed-msg-part-container > mws-text-message-part),
//     mws-image-message-part > div[data-e2e-message-image] > img[src=blob:...], and
//     mws-text-message-part[data-e2e-text-message-content]. Tombstones carry
//     data-e2e-message-tombstone on the core; video/file rows have no part. Rows rendered when a
//     conversation opens are labelled at once; rows added later (live, load-older) get their
//     aria-labels Message.LabelDelayMS (100-300 ms, seeded) after insertion.
//   - Labels: "<Sender> said: <text>. <Sent|Received> on <January 2, 2006 at 3:04 PM>. [Status.]
//     [X reacted with K.]", "<Sender> sent an image. ...", or "Received at 3:04 PM." with
//     TimeOnlyLabel. Sender is "You" for the local user. Message.TextLabel/ImageLabel compute them.
//   - Ids: conversations "Cg"+17 base64url chars; incoming "xxxx=" + 19 chars; outgoing UUIDv4;
//     pending "tmp_" + 12 digits. All drawn from the seed.
//   - Window: at most Options.Window rows; a new row removes the oldest. LoadOlder (or a mouse
//     wheel up at the top) inserts older rows at the top; a later new row trims them again.
//   - Compose: [data-e2e-message-input] wrapping textarea[data-e2e-message-input-box] (or a
//     div[contenteditable=true][data-e2e-message-input-box] with VariantContentEditable) and
//     button[data-e2e-send-text-button] labelled SMS or RCS ("Send SMS"). A send is a keydown Enter
//     without Shift in the box, or a click on the button. When event.isTrusted it is logged in
//     Sent, the box clears, a row "You said: <text>. Sent on ... SMS." appears with a tmp_ id
//     (swapped to a UUID after ConfirmAfter) and the snippet becomes "You: <text>". Otherwise it is
//     logged in Rejected and nothing else changes. Shift+Enter inserts a newline.
//   - Sidebar: items are updated in place; order is pinned first, then most recent activity; a
//     delivery to a conversation that is not open sets data-e2e-is-unread="true" (cleared on open)
//     and document.title becomes "(N) Messages for web".
//   - Variants (Options.Variants, SetVariant, or ?variant=a,b on the page URL for that page only):
//     signed-out (pairing page with mw-qr-code and "Sign in with Google" #sim-signin, which
//     window.open()s AccountsURL()+"/signin"; that page posts {type:"sim-signin"} to its opener,
//     only for the app origin, and closes itself 400 ms later; the opener checks event.origin,
//     reports it, and loads /web/conversations signed in), unrecognised (same content, none of the
//     known tags or data-e2e attributes), slow, contenteditable, mirror (textarea draft mirrored
//     into textContent). Structure variants render the same content in other shapes, with
//     per-row numbers drawn from the seed and the row id (Message.Shape): nest-1 (rows inside
//     mws-bottom-anchored), nest-2 (inside mws-bottom-anchored > div.msg-group; scroll-back rows
//     in a new group at the top), nest-mixed (each row in 0-2 div.row-frame), late-src (images
//     get their src 200-1500 ms after the row), late-labels (live and scroll-back rows get their
//     labels 1-5 s after insertion). Content variants add the group DemoTrivia where the demo
//     content loads: punctuated-names ("Dr. Alice Chen", "Smith, Jane", "J. R. Okafor"),
//     many-reactors (three people and the user react with one kind, "A, B, C and You reacted
//     with love"), astral (3,000 emoji in one message, other astral-plane text in another).
//     Without variants the page and its ids are exactly those of the default.
//   - Test hooks on <body> (not part of the real page; the bridge must not use them):
//     data-sim-ready="1" after the state is rendered, data-sim-conversation=<open id>,
//     data-sim-shown=<id> once that conversation's rows are in the DOM.
//
// Demo content (unless Options.Empty): "Book club" (pinned, muted, 60 rows), "72975" (automated),
// "(555) 555-7334" (formatted-phone sender, a time-only label, "hi clank"), "Bob" (RCS, another
// user's [clanker] message, unread), "Jane Doe" (own [clanker] row with a reaction, PNG with text,
// GIF, multi-line text, text containing ". Received on "), "Dad, Mom" (EXIF photo with and without
// text, tombstone, video row, quoted reply, reactions). Names are the Demo* constants.
package sim
