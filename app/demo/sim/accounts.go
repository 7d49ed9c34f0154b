package sim

import (
	"html/template"
	"net/http"
)

// accountsPage is the fake Google sign-in popup. It lives on a second origin, as accounts.google.com
// does, and tells its opener (on the app origin only) that sign-in succeeded, then closes itself.
var accountsPage = template.Must(template.New("accounts").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in - Google Accounts</title>
<style>
body{font-family:Roboto,Arial,sans-serif;background:#f1f3f4;margin:0;display:flex;align-items:center;justify-content:center;height:100vh}
.card{background:#fff;border:1px solid #dadce0;border-radius:8px;padding:40px;width:360px;text-align:center}
h1{font-weight:400;font-size:24px;margin:16px 0 8px}
button{margin-top:24px;background:#1a73e8;color:#fff;border:0;border-radius:4px;padding:10px 24px;font-size:14px;cursor:pointer}
.logo{font-size:22px;font-weight:500;color:#5f6368}
</style></head>
<body><div class="card" id="accounts-card">
<div class="logo">Google</div>
<h1>Choose an account</h1>
<p>to continue to Messages</p>
<p id="account">demo.user@example.com</p>
<button id="continue" type="button">Continue</button>
<p id="state"></p>
</div>
<script>
(function () {
  var appOrigin = {{.AppOrigin}};
  var done = false;
  function finish() {
    if (done) return;
    done = true;
    if (!window.opener) {
      document.getElementById('state').textContent = 'Open this page from the Messages sign-in button.';
      return;
    }
    window.opener.postMessage({ type: 'sim-signin', account: 'demo.user@example.com' }, appOrigin);
    document.getElementById('state').textContent = 'Signed in. This window will close.';
    setTimeout(function () { window.close(); }, 50);
  }
  document.getElementById('continue').addEventListener('click', finish);
  // The real chooser waits for a click; the fake continues by itself so tests need not drive a popup.
  setTimeout(finish, {{.AutoMS}});
})();
</script></body></html>`))

func (s *Server) accountsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /signin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		accountsPage.Execute(w, map[string]any{"AppOrigin": s.appURL, "AutoMS": 400})
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/signin", http.StatusFound)
	})
	return loopbackOnly(mux)
}
