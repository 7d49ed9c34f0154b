package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestHeadlessChromiumLoadsALoopbackPage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>probe</title><p id=x>loopback ok</p>`)
	}))
	defer srv.Close()
	b := New(t)
	var text string
	Run(t, b.Context(), "load probe page", chromedp.Navigate(srv.URL), chromedp.Text("#x", &text))
	if text != "loopback ok" {
		t.Fatalf("page text = %q, want %q", text, "loopback ok")
	}
	WaitJS(t, b.Context(), `document.title === "probe"`, 5e9)
	if p := SaveScreenshot(t, b.Context(), "harness-probe"); p == "" {
		t.Fatal("no screenshot path")
	}
}
