package engine

import (
	"fmt"
	"sort"
)

// Tokens is a count of prompt and completion tokens, as reported by the
// provider for one request or summed over many.
type Tokens struct {
	Prompt     int64 `json:"prompt"`
	Completion int64 `json:"completion"`
}

// Cost is the price of the tokens t at p (the prices are per million tokens). The budget
// and the settings window's usage view both count cost with it.
func (p Price) Cost(t Tokens) float64 {
	return float64(t.Prompt)*p.PromptPerMillion/1e6 + float64(t.Completion)*p.CompletionPerMillion/1e6
}

// Total is prompt plus completion tokens.
func (t Tokens) Total() int64 { return t.Prompt + t.Completion }

// Add returns the sum of two counts.
func (t Tokens) Add(o Tokens) Tokens {
	return Tokens{Prompt: t.Prompt + o.Prompt, Completion: t.Completion + o.Completion}
}

// BudgetStatus is the outcome of checking month-to-date usage against the
// budget.
type BudgetStatus struct {
	// Enforced is false when no budget is set.
	Enforced bool
	// Used and Limit are in tokens or currency, depending on the budget kind.
	Used, Limit float64
	// Exceeded means the app must deactivate every conversation.
	Exceeded bool
	// UnpricedModels lists models that were used but have no price; their
	// cost is unknown, so a cost budget with unpriced usage is treated as
	// exceeded rather than silently counting that usage as free.
	UnpricedModels []string
}

// Message is a sentence for the banner shown when the budget is exceeded.
func (st BudgetStatus) Message(kind BudgetKind) string {
	switch {
	case !st.Exceeded:
		return ""
	case len(st.UnpricedModels) > 0:
		return fmt.Sprintf("Monthly budget cannot be checked: no price is set for model %q. Add its price in Settings > Budget > Model prices. Clanker has been deactivated.", st.UnpricedModels[0])
	case kind == BudgetTokens:
		return fmt.Sprintf("Monthly token budget reached (%.0f of %.0f tokens). Clanker has been deactivated.", st.Used, st.Limit)
	default:
		return fmt.Sprintf("Monthly cost budget reached (%.2f of %.2f). Clanker has been deactivated.", st.Used, st.Limit)
	}
}

// Check compares month-to-date usage per model with the budget.
func (b Budget) Check(usedByModel map[string]Tokens) BudgetStatus {
	switch b.Kind {
	case BudgetTokens:
		var used int64
		for _, t := range usedByModel {
			used += t.Total()
		}
		return BudgetStatus{Enforced: true, Used: float64(used), Limit: float64(b.MonthlyTokens),
			Exceeded: used >= b.MonthlyTokens}
	case BudgetCost:
		st := BudgetStatus{Enforced: true, Limit: b.MonthlyCost}
		for model, t := range usedByModel {
			p, ok := b.Prices[model]
			if !ok {
				if t.Total() > 0 {
					st.UnpricedModels = append(st.UnpricedModels, model)
				}
				continue
			}
			st.Used += p.Cost(t)
		}
		sort.Strings(st.UnpricedModels)
		st.Exceeded = st.Used >= st.Limit || len(st.UnpricedModels) > 0
		return st
	default:
		return BudgetStatus{}
	}
}
