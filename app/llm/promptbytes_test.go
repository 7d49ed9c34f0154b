package llm

import "strings"

// The prompt's sizes in a canonical text form, which the prompt and layout tests measure:
// how much of one request the next repeats, byte for byte, is what a provider's prompt
// cache can reuse. The app itself never needs them.

// bytes is the size of the prompt's text in its canonical form.
func (p Prompt) bytes() int { return len(p.canonical(len(p.Parts))) }

// commonPrefixBytes reports how many leading bytes two prompts share in
// canonical form: the part of b a provider's prompt cache can reuse after a.
func commonPrefixBytes(a, b Prompt) int {
	x, y := a.canonical(len(a.Parts)), b.canonical(len(b.Parts))
	n := min(len(x), len(y))
	for i := range n {
		if x[i] != y[i] {
			return i
		}
	}
	return n
}

// canonical is the text of the first n parts, each as role, text and image reference.
func (p Prompt) canonical(n int) string {
	var b strings.Builder
	for _, part := range p.Parts[:n] {
		b.WriteString(string(part.Role))
		b.WriteByte('\n')
		b.WriteString(part.Text)
		if part.ImageURL != "" {
			b.WriteString("\n<image ")
			b.WriteString(part.ImageURL)
			b.WriteString(">")
		}
		b.WriteString("\n\n")
	}
	return b.String()
}
