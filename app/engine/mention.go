package engine

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The mention rule decides what "addressing Clanker" means in Available mode. "Clanker" is
// also everyday slang for robots, and "clank" an ordinary word, so a bare substring (the
// upstream extension's /clank(er)?/i) answers "clank-free", "clanking pipes" and "those
// clankers". The rule instead reads words:
//
//   - the name "clanker", or a common misspelling of it, as a word of its own: not part of a
//     longer word or a hyphenated compound, not plural, and not used as a common noun (after
//     "a", "the", "such a", "those" and the like). "Clanker's" counts: it names this Clanker.
//   - the short form "clank" only where it is plainly said to Clanker: as the message's first
//     word, after a greeting ("hey clank"), with an "@", or as a vocative set off by a comma or
//     ending the sentence ("thanks, clank!").
//   - a reply to one of Clanker's own messages (the page shows the quoted "[clanker] ..." text)
//     addresses it, whatever the words.
//
// Every "[clanker]" signature is removed first: another Clanker's prefix is a signature, not
// a mention, or two Clankers in one conversation would answer each other forever.

// strongNames are the full name and the misspellings people type for it.
var strongNames = map[string]bool{
	"clanker": true, "klanker": true, "clankr": true, "clanka": true, "clankah": true,
	"clnaker": true, "clakner": true, "clamker": true, "clankeer": true, "clanekr": true,
	"clanler": true, "clanket": true, "clsnker": true,
}

// weakNames are short forms that are ordinary words too.
var weakNames = map[string]bool{"clank": true}

// commonNounWords make the next word a common noun ("a clanker", "those clankers"), which is
// the slang, not the name.
var commonNounWords = map[string]bool{
	"a": true, "an": true, "the": true, "this": true, "that": true, "these": true, "those": true,
	"some": true, "any": true, "another": true, "every": true, "each": true, "no": true,
	"such": true, "like": true, "other": true, "one": true, "dumb": true, "stupid": true,
	"filthy": true, "damn": true, "dirty": true,
}

// greetings make the next word a vocative ("hey clank").
var greetings = map[string]bool{
	"hey": true, "hi": true, "hello": true, "yo": true, "ok": true, "okay": true, "oi": true,
	"dear": true, "thanks": true, "thank": true, "thx": true, "ty": true, "please": true,
	"pls": true, "sup": true, "hiya": true, "morning": true, "evening": true, "night": true,
	"bye": true, "cheers": true,
}

// mentionsClanker reports whether text addresses Clanker by name (see the rule above).
func mentionsClanker(text string) bool {
	text = signatureRE.ReplaceAllString(text, " ")
	words := splitWords(text)
	for i, w := range words {
		name, possessive := trimPossessive(w.lower)
		switch {
		case strongNames[name]:
			if w.compound {
				continue
			}
			if i > 0 && commonNounWords[words[i-1].lower] && !w.at {
				continue
			}
			return true
		case weakNames[name] && !possessive && !w.compound:
			if i > 0 && commonNounWords[words[i-1].lower] && !w.at {
				continue
			}
			if w.at || i == 0 || greetings[words[i-1].lower] || words[i-1].endsClause || w.vocative {
				return true
			}
		}
	}
	return false
}

// addressesClanker reports whether message m addresses Clanker: by name, or by replying to one
// of Clanker's own messages.
func addressesClanker(m Message) bool {
	if mentionsClanker(m.Text) {
		return true
	}
	// The quote of one of our own messages: the page shows it as the local user's ("You"),
	// or names nobody. Another person's Clanker quoted is not us.
	own := m.QuotedSender == "" || m.QuotedSender == "You"
	return own && strings.HasPrefix(strings.TrimSpace(m.Quoted), strings.TrimSpace(Prefix))
}

// word is one word of a message as the mention rule reads it.
type word struct {
	lower string
	// at: written with an "@" in front ("@clanker").
	at bool
	// compound: joined to letters by a hyphen or a digit ("clank-free", "clanker2000").
	compound bool
	// endsClause: the word is followed by punctuation that ends a clause (",", ".", "!", "?",
	// ":", ";"), so the next word starts a new one ("ok, clank").
	endsClause bool
	// vocative: followed by a comma, "!", "?" or the end of the text: how a name is called out
	// ("thanks, clank!", "what now, clank").
	vocative bool
}

// splitWords cuts text into words of letters (apostrophes inside a word kept), noting for
// each the marks around it that the mention rule needs.
func splitWords(text string) []word {
	var out []word
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) {
			i += size
			continue
		}
		start := i
		for i < len(text) {
			r, size = utf8.DecodeRuneInString(text[i:])
			if unicode.IsLetter(r) || ((r == '\'' || r == '’') && i+size < len(text) && startsLetter(text[i+size:])) {
				i += size
				continue
			}
			break
		}
		w := word{lower: strings.ToLower(strings.ReplaceAll(text[start:i], "’", "'"))}
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[i:])
		w.at = before == '@'
		w.compound = (before == '-' && start > 1 && endsLetterOrDigit(text[:start-1])) ||
			unicode.IsDigit(before) || unicode.IsDigit(after) ||
			(after == '-' && startsLetterOrDigit(text[i+1:]))
		rest := strings.TrimLeft(text[i:], " \t")
		next, _ := utf8.DecodeRuneInString(rest)
		w.endsClause = strings.ContainsRune(",.!?:;", next)
		w.vocative = rest == "" || strings.ContainsRune(",!?", next) || (next == '.' && strings.TrimSpace(rest[1:]) == "")
		out = append(out, w)
	}
	return out
}

func trimPossessive(w string) (string, bool) {
	if s, ok := strings.CutSuffix(w, "'s"); ok {
		return s, true
	}
	return w, false
}

func startsLetter(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}

func startsLetterOrDigit(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func endsLetterOrDigit(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}
