// The bootstrap page of the main window. It asks the shell (Go) for the Messages URL,
// then replaces itself with that page. The shell loads this page again with
// ?offline=<reason> when the Messages page fails to load; it then shows Retry and also
// retries on its own when the network comes back or after cfg.retrySeconds.
(function () {
  'use strict';
  var params = new URLSearchParams(location.search);
  var offline = params.get('offline');

  // report tells the shell what the page shows. The shell only logs it; it decides
  // nothing from it, because any page of an allowed origin could send the same.
  function report(state, extra) {
    var msg = { name: 'clanker:boot', data: [JSON.stringify(Object.assign({ state: state }, extra || {}))] };
    try {
      if (window.runtime && typeof window.runtime.EventsEmit === 'function') {
        window.runtime.EventsEmit(msg.name, msg.data[0]);
      } else if (window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.external) {
        window.webkit.messageHandlers.external.postMessage('EE' + JSON.stringify(msg));
      } else if (window.chrome && window.chrome.webview) {
        window.chrome.webview.postMessage('EE' + JSON.stringify(msg));
      }
    } catch (e) { /* reporting is best effort */ }
  }

  function show(id) {
    document.getElementById('connecting').hidden = id !== 'connecting';
    document.getElementById('offline').hidden = id !== 'offline';
  }

  function go(target) {
    show('connecting');
    document.getElementById('connecting-detail').textContent = target;
    report('connecting', { target: target });
    location.replace(target);
  }

  function withConfig(fn) {
    fetch('/clanker-boot.json', { cache: 'no-store' })
      .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
      .then(function (cfg) {
        if (!cfg || typeof cfg.target !== 'string') throw new Error('no target in boot config');
        fn(cfg);
      })
      .catch(function (e) {
        show('offline');
        document.getElementById('offline-detail').textContent = 'Start-up failed: ' + e.message;
        report('error', { reason: String(e.message) });
      });
  }

  withConfig(function (cfg) {
    if (cfg.title) document.title = cfg.title;
    if (offline === null) { go(cfg.target); return; }
    show('offline');
    document.getElementById('offline-detail').textContent = offline;
    var retry = document.getElementById('retry');
    retry.addEventListener('click', function () { go(cfg.target); });
    retry.focus();
    window.addEventListener('online', function () { go(cfg.target); });
    if (cfg.retrySeconds > 0) setTimeout(function () { go(cfg.target); }, cfg.retrySeconds * 1000);
    report('offline', { target: cfg.target, reason: offline, retry: true });
  });
})();
