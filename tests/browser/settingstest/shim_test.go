package settingstest

import (
	"encoding/json"
	"io"
	"io/fs"
	"net/http"

	"github.com/clanker-desktop/clanker/app/desktop/settingswin"
)

// serviceStandIn is the page's binding in these tests, installed before the page's own
// script runs: window.go.settingswin.SettingsService as Wails binds it in the settings
// window, each method a promise of what POST /api/<Method> (settingsHandler) answers.
const serviceStandIn = `(function(){
  function call(method, arg) {
    return fetch('/api/' + method, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(arg === undefined ? null : arg),
    }).then(async function(r) {
      const body = await r.json().catch(function(){ return null; });
      if (!r.ok) throw new Error((body && body.error) || r.statusText);
      return body;
    });
  }
  const svc = new Proxy({}, { get: function(_, method) { return function(arg) { return call(method, arg); }; } });
  window.go = { settingswin: { SettingsService: svc } };
})();`

// settingsHandler serves the settings page from assets plus a JSON shim of svc at
// POST /api/<Method>, the same calls the Wails binding makes, so the page is tested in
// headless Chromium against the real service. It is served on loopback only.
func settingsHandler(svc *settingswin.SettingsService, assets fs.FS) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /", http.FileServerFS(assets))
	reply := func(w http.ResponseWriter, v any, err error) {
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
			return
		}
		_ = json.NewEncoder(w).Encode(v)
	}
	decode := func(w http.ResponseWriter, r *http.Request, v any) bool {
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(v); err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "bad request: " + err.Error()})
			return false
		}
		return true
	}
	mux.HandleFunc("POST /api/Load", func(w http.ResponseWriter, r *http.Request) {
		v, err := svc.Load()
		reply(w, v, err)
	})
	mux.HandleFunc("POST /api/Validate", func(w http.ResponseWriter, r *http.Request) {
		var req settingswin.SaveRequest
		if decode(w, r, &req) {
			reply(w, svc.Validate(req), nil)
		}
	})
	mux.HandleFunc("POST /api/Save", func(w http.ResponseWriter, r *http.Request) {
		var req settingswin.SaveRequest
		if decode(w, r, &req) {
			v, err := svc.Save(req)
			reply(w, v, err)
		}
	})
	mux.HandleFunc("POST /api/TestConnection", func(w http.ResponseWriter, r *http.Request) {
		var req settingswin.TestRequest
		if decode(w, r, &req) {
			v, err := svc.TestConnection(req)
			reply(w, v, err)
		}
	})
	mux.HandleFunc("POST /api/OpenLink", func(w http.ResponseWriter, r *http.Request) {
		var link string
		if decode(w, r, &link) {
			reply(w, nil, svc.OpenLink(link))
		}
	})
	mux.HandleFunc("POST /api/SaveMemory", func(w http.ResponseWriter, r *http.Request) {
		var req settingswin.MemoryRequest
		if decode(w, r, &req) {
			v, err := svc.SaveMemory(req)
			reply(w, v, err)
		}
	})
	mux.HandleFunc("POST /api/ClearMemory", func(w http.ResponseWriter, r *http.Request) {
		var req settingswin.ConversationRequest
		if decode(w, r, &req) {
			v, err := svc.ClearMemory(req)
			reply(w, v, err)
		}
	})
	mux.HandleFunc("POST /api/SetModelOverride", func(w http.ResponseWriter, r *http.Request) {
		var req settingswin.ModelOverrideRequest
		if decode(w, r, &req) {
			v, err := svc.SetModelOverride(req)
			reply(w, v, err)
		}
	})
	return mux
}
