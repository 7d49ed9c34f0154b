package engine

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PriceEntry is one line of the model price list as the settings window shows and sends it:
// the model name and its two prices per million tokens as typed, "" where nothing is entered.
// The prices travel as text so that what the user typed, not a browser's reading of it, is
// what gets checked.
type PriceEntry struct {
	Model      string `json:"model"`
	Prompt     string `json:"prompt"`
	Completion string `json:"completion"`
}

// maxPriceText bounds one typed price; longer text is refused before it is parsed.
const maxPriceText = 40

// PricesFromEntries turns the typed price list into Budget.Prices. A line with no prices is
// left out (the window offers such lines for models that still need a price), so it stays
// unpriced rather than free. The second result is a sentence for the first line that cannot
// be read ("" when all can); the map is then nil. Range and name limits are Settings.Validate's.
func PricesFromEntries(entries []PriceEntry) (map[string]Price, string) {
	prices := map[string]Price{}
	filled := 0
	for _, e := range entries {
		if strings.TrimSpace(e.Model) != "" || strings.TrimSpace(e.Prompt) != "" || strings.TrimSpace(e.Completion) != "" {
			filled++
		}
	}
	if filled > MaxPrices {
		return nil, tooManyPrices(filled)
	}
	for _, e := range entries {
		model := strings.TrimSpace(e.Model)
		prompt, completion := strings.TrimSpace(e.Prompt), strings.TrimSpace(e.Completion)
		switch {
		case prompt == "" && completion == "":
			continue
		case model == "":
			return nil, "Every model price needs a model name."
		case prompt == "" || completion == "":
			return nil, fmt.Sprintf("Enter both prices for model %q (0 where it is free).", model)
		}
		if _, dup := prices[model]; dup {
			return nil, fmt.Sprintf("Model %q has two price lines; keep one.", model)
		}
		p, msg := parsePrice(model, "prompt", prompt)
		if msg != "" {
			return nil, msg
		}
		c, msg := parsePrice(model, "completion", completion)
		if msg != "" {
			return nil, msg
		}
		prices[model] = Price{PromptPerMillion: p, CompletionPerMillion: c}
	}
	return prices, ""
}

// parsePrice reads one typed price: digits with a point for decimals. NaN, infinities and
// numbers too large for a float are refused here; negative and too high prices are left to
// Validate, which names the limit.
func parsePrice(model, which, text string) (float64, string) {
	bad := fmt.Sprintf("The %s price for model %q is not a number: write it with digits and a point, like 0.25.", which, model)
	if utf8.RuneCountInString(text) > maxPriceText {
		return 0, bad
	}
	v, err := strconv.ParseFloat(text, 64)
	switch {
	case strings.ContainsAny(text, "xXpP_") || math.IsNaN(v):
		return 0, bad
	case math.IsInf(v, 1):
		return 0, priceTooHigh(model)
	case math.IsInf(v, -1):
		return 0, priceNegative(model)
	case err != nil:
		return 0, bad
	}
	return v, ""
}

// PriceEntries lists prices for the settings window: every priced model with its prices, then
// an empty line for each model in suggest that has no price yet, so the user only types the
// numbers. Priced models come in name order; suggestions keep their order.
func PriceEntries(prices map[string]Price, suggest []string) []PriceEntry {
	out := []PriceEntry{}
	names := make([]string, 0, len(prices))
	for name := range prices {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := prices[name]
		out = append(out, PriceEntry{Model: name, Prompt: formatPrice(p.PromptPerMillion), Completion: formatPrice(p.CompletionPerMillion)})
	}
	seen := map[string]bool{}
	for _, m := range suggest {
		m = strings.TrimSpace(m)
		if _, ok := prices[m]; ok || m == "" || seen[m] {
			continue
		}
		seen[m] = true
		out = append(out, PriceEntry{Model: m})
	}
	return out
}

// formatPrice writes a price as the shortest text that reads back as the same number.
func formatPrice(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// The sentences PricesFromEntries and Settings.Validate share.
func tooManyPrices(n int) string {
	return fmt.Sprintf("At most %d model prices can be set (there are %d).", MaxPrices, n)
}

func priceTooHigh(model string) string {
	return fmt.Sprintf("The prices for model %q can be at most %.0f per million tokens.", model, MaxPricePerMillion)
}

func priceNegative(model string) string {
	return fmt.Sprintf("The prices for model %q must be zero or more.", model)
}
