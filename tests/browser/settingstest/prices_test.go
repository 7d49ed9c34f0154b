package settingstest

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/sqlite"
	"github.com/clanker-desktop/clanker/tests/browser"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// hostileModel is a model name as a usage record might hold it.
const hostileModel = `m<img src=x id=pwnedPrice onerror="document.title='pwned'">`

// priceRow is the nth line (from 1) of the price list.
func priceRow(n int, part string) string {
	return fmt.Sprintf("#prices tbody tr:nth-child(%d) .%s", n, part)
}

func priceLines(t *testing.T, f *fixture) [][]string {
	t.Helper()
	var rows [][]string
	f.run(t, chromedp.Evaluate(`Array.from(document.querySelectorAll('#prices tbody tr')).map(tr => Array.from(tr.querySelectorAll('input')).map(i => i.value))`, &rows))
	return rows
}

// chooseBudget picks a budget kind as a user does: the value, then the change event.
func chooseBudget(kind string) chromedp.Action {
	var ok bool
	return chromedp.Evaluate(fmt.Sprintf(`(() => { const s = document.getElementById('budgetKind'); s.value = %q;
		s.dispatchEvent(new Event('change', { bubbles: true })); return true })()`, kind), &ok)
}

func storedSettings(t *testing.T, store *sqlite.Store) engine.Settings {
	t.Helper()
	st, err := store.Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The price list offers a line for every model Clanker uses without a price (the configured
// model, a conversation's own model, a model in the usage), so the user only types numbers.
// A cost budget that would leave one of them unpriced is refused with the sentence naming it;
// once every line has prices they are stored, read back on reload, and the Usage tab prices
// the tokens.
func TestModelPricesArePrefilledStoredAndPriceTheUsage(t *testing.T) {
	store, err := sqlite.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st := engine.DefaultSettings()
	st.Model = "gpt-5-mini"
	if _, err := store.SaveSettings(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := store.SetMode(ctx, "c-2", engine.ModeAvailable); err != nil {
		t.Fatal(err)
	}
	if err := store.SetModelOverride(ctx, "c-2", "local-llama"); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	today := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, time.Local)
	if err := store.RecordUsage(ctx, engine.Usage{Conversation: "c-1", Model: hostileModel,
		Tokens: engine.Tokens{Prompt: 1_000_000, Completion: 500_000}, At: today}); err != nil {
		t.Fatal(err)
	}
	f := setupWith(t, store)

	want := [][]string{{"gpt-5-mini", "", ""}, {"local-llama", "", ""}, {hostileModel, "", ""}}
	if got := priceLines(t, f); !reflect.DeepEqual(got, want) {
		t.Fatalf("prefilled price lines: got %q, want %q", got, want)
	}
	noElement(t, f, "#pwnedPrice")
	// Before any price is set the Usage tab says where costs come from.
	f.run(t, chromedp.Click(`nav .tab[data-tab="usage"]`, chromedp.ByQuery), chromedp.WaitVisible("#usageDays", chromedp.ByQuery))
	f.waitText(t, "#costNote", "Settings > Budget > Model prices")
	f.run(t, chromedp.Click("#goPrices", chromedp.ByQuery), chromedp.WaitVisible("#prices", chromedp.ByQuery))
	var focused string
	f.run(t, chromedp.Evaluate(`document.activeElement === document.querySelector('#prices tbody tr:nth-child(1) .pricePrompt') ? 'yes' : 'no'`, &focused))
	if focused != "yes" {
		t.Error("Set model prices should focus the first line still without prices")
	}

	// A cost budget with local-llama left unpriced would stop Clanker in c-2: refused.
	f.run(t, chooseBudget("cost"), setValue("#monthlyCost", "10"),
		setValue(priceRow(1, "pricePrompt"), "0.25"), setValue(priceRow(1, "priceCompletion"), "2"),
		setValue(priceRow(3, "pricePrompt"), "1"), setValue(priceRow(3, "priceCompletion"), "2"),
		chromedp.Click("#save", chromedp.ByQuery))
	f.waitText(t, `.err[data-for="prices"]`, `no price is set for model "local-llama"`)
	f.waitText(t, `.err[data-for="prices"]`, "Settings > Budget > Model prices")
	f.waitText(t, "#saveResult", "Not saved")
	if got := storedSettings(t, store).Budget; got.Kind != engine.BudgetNone || len(got.Prices) != 0 {
		t.Fatalf("a refused save stored the budget %+v", got)
	}
	var marked bool
	f.run(t, chromedp.Evaluate(`document.querySelector('#prices tbody tr:nth-child(2) .pricePrompt').getAttribute('aria-invalid') === 'true'`, &marked))
	if !marked {
		t.Error("the line the sentence names is not marked")
	}
	browser.SaveScreenshot(t, f.tab, "settings-model-prices")

	f.run(t, setValue(priceRow(2, "pricePrompt"), "0"), setValue(priceRow(2, "priceCompletion"), "0"),
		chromedp.Click("#save", chromedp.ByQuery))
	f.waitText(t, "#saveResult", "Saved.")
	got := storedSettings(t, store).Budget
	wantPrices := map[string]engine.Price{"gpt-5-mini": {PromptPerMillion: 0.25, CompletionPerMillion: 2},
		"local-llama": {}, hostileModel: {PromptPerMillion: 1, CompletionPerMillion: 2}}
	if got.Kind != engine.BudgetCost || got.MonthlyCost != 10 || !reflect.DeepEqual(got.Prices, wantPrices) {
		t.Fatalf("stored budget %+v, want a cost budget of 10 with %v", got, wantPrices)
	}

	// The Usage tab now prices the usage: 1M prompt tokens at 1 plus 0.5M completion at 2.
	f.run(t, chromedp.Click(`nav .tab[data-tab="usage"]`, chromedp.ByQuery), chromedp.WaitVisible("#usageConvs", chromedp.ByQuery))
	convs := tableRows(t, f, "#usageConvs tbody tr")
	if len(convs) != 1 || strings.Join(convs[0], "|") != "Conversation c-1|1|1,000,000|500,000|1,500,000|2.0000" {
		t.Fatalf("per-conversation usage after pricing: %q", convs)
	}
	var note string
	f.run(t, chromedp.TextContent("#costNote", &note, chromedp.ByQuery))
	if note != "" {
		t.Errorf("every model is priced, yet the usage note says %q", note)
	}

	// A reload reads the prices back from the store, priced lines in name order.
	f.run(t, chromedp.Reload(), chromedp.WaitVisible(`body[data-ready="true"]`))
	want = [][]string{{"gpt-5-mini", "0.25", "2"}, {"local-llama", "0", "0"}, {hostileModel, "1", "2"}}
	if got := priceLines(t, f); !reflect.DeepEqual(got, want) {
		t.Fatalf("price lines after a reload: got %q, want %q", got, want)
	}
	noElement(t, f, "#pwnedPrice")
}

// Each kind of bad price line gets its sentence next to the list while the user types, and
// Save stores nothing until it is fixed; removing a line removes its price.
func TestModelPriceMistakesGetASentenceAndStoreNothing(t *testing.T) {
	store, err := sqlite.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := engine.DefaultSettings()
	st.Model = "grok-4"
	if _, err := store.SaveSettings(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	f := setupWith(t, store)
	waitErr := func(want string) {
		t.Helper()
		f.waitText(t, `.err[data-for="prices"]`, want)
	}
	// A cost budget while the configured model has no price.
	f.run(t, chooseBudget("cost"), setValue("#monthlyCost", "5"),
		chromedp.Click("#save", chromedp.ByQuery))
	waitErr(`Your monthly budget counts cost, and no price is set for model "grok-4"`)
	f.waitText(t, "#saveResult", "Not saved")
	var limits string
	f.run(t, chromedp.Evaluate(`['tokensLimit', 'costLimit'].map(id => String(document.getElementById(id).offsetParent === null)).join(' ')`, &limits))
	if limits != "true false" {
		t.Errorf("under a cost budget only the cost limit should show; hidden token/cost limit: %s", limits)
	}

	f.run(t, setValue(priceRow(1, "pricePrompt"), "cheap"), setValue(priceRow(1, "priceCompletion"), "1"))
	waitErr(`The prompt price for model "grok-4" is not a number: write it with digits and a point, like 0.25.`)
	f.run(t, setValue(priceRow(1, "pricePrompt"), "2000000"))
	waitErr(`The prices for model "grok-4" can be at most 1000000 per million tokens.`)
	f.run(t, setValue(priceRow(1, "pricePrompt"), "-1"))
	waitErr(`The prices for model "grok-4" must be zero or more.`)
	f.run(t, setValue(priceRow(1, "pricePrompt"), " ")) // a key press, so the page checks again
	waitErr(`Enter both prices for model "grok-4" (0 where it is free).`)
	f.run(t, setValue(priceRow(1, "pricePrompt"), "3"), chromedp.Click("#addPrice", chromedp.ByQuery))
	f.run(t, setValue(priceRow(2, "pricePrompt"), "1"), setValue(priceRow(2, "priceCompletion"), "1"))
	waitErr("Every model price needs a model name.")
	f.run(t, setValue(priceRow(2, "priceModel"), " grok-4"))
	waitErr(`Model "grok-4" has two price lines; keep one.`)
	f.run(t, chromedp.Click("#save", chromedp.ByQuery))
	f.waitText(t, "#saveResult", "Not saved")
	if got := storedSettings(t, store).Budget; got.Kind != engine.BudgetNone || len(got.Prices) != 0 {
		t.Fatalf("a refused save stored the budget %+v", got)
	}

	f.run(t, chromedp.Click("#prices tbody tr:nth-child(2) button", chromedp.ByQuery))
	testkit.WaitFor(t, 45*time.Second, "the price message to go once the list is fixed", func() (bool, string) {
		var msg string
		f.run(t, chromedp.TextContent(`.err[data-for="prices"]`, &msg, chromedp.ByQuery))
		return msg == "", fmt.Sprintf("it still says %q", msg)
	})
	f.run(t, chromedp.Click("#save", chromedp.ByQuery))
	f.waitText(t, "#saveResult", "Saved.")
	if got := storedSettings(t, store).Budget; got.Kind != engine.BudgetCost ||
		!reflect.DeepEqual(got.Prices, map[string]engine.Price{"grok-4": {PromptPerMillion: 3, CompletionPerMillion: 1}}) {
		t.Fatalf("stored budget %+v", got)
	}
}
