// The settings page. It talks to the Go SettingsService: through Wails' binding in the
// settings window, or through a JSON shim at /api/ when served over loopback for tests.
// Every value shown comes from Go; the API key goes in and never comes back.
'use strict';

const $ = (id) => document.getElementById(id);

function api(method, arg) {
  const bound = window.go && window.go.settingswin && window.go.settingswin.SettingsService;
  if (bound) {
    return arg === undefined ? bound[method]() : bound[method](arg);
  }
  return fetch('/api/' + method, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(arg === undefined ? null : arg),
  }).then(async (r) => {
    const body = await r.json().catch(() => null);
    if (!r.ok) throw new Error((body && body.error) || r.statusText);
    return body;
  });
}

let view = null;

const num = (id) => {
  const v = $(id).value.trim();
  return v === '' ? NaN : Number(v);
};

function collect() {
  const s = Object.assign({}, view ? view.settings : {});
  s.endpoint = $('endpoint').value;
  s.model = $('model').value;
  s.userName = $('userName').value;
  s.historySize = num('historySize');
  s.inactiveMode = $('inactiveMode').value;
  s.relaxedResponsiveness = $('relaxedResponsiveness').checked;
  s.webSearch = $('webSearch').checked;
  s.newsSearch = $('newsSearch').checked;
  s.newsMaxSearches = num('newsMaxSearches');
  s.quietStartHour = num('quietStartHour');
  s.quietStopHour = num('quietStopHour');
  s.budget = Object.assign({}, s.budget || {}, {
    kind: $('budgetKind').value,
    monthlyTokens: num('monthlyTokens') || 0,
    monthlyCost: num('monthlyCost') || 0,
  });
  s.notifications = {
    errors: $('notifyErrors').checked,
    incomingWhileHidden: $('notifyIncoming').checked,
    hideContent: $('hideContent').checked,
  };
  s.startHidden = $('startHidden').checked;
  s.autostart = $('autostart').checked;
  // A number field left empty or holding text is sent as -1 so Go's range check names it.
  for (const k of ['historySize', 'newsMaxSearches', 'quietStartHour', 'quietStopHour']) {
    if (!Number.isInteger(s[k])) s[k] = -1;
  }
  return s;
}

function fill(v) {
  view = v;
  const s = v.settings;
  $('endpoint').value = s.endpoint || '';
  $('model').value = s.model || '';
  $('userName').value = s.userName || '';
  $('historySize').value = s.historySize;
  $('inactiveMode').value = s.inactiveMode || 'ignore';
  $('relaxedResponsiveness').checked = !!s.relaxedResponsiveness;
  $('webSearch').checked = !!s.webSearch;
  $('newsSearch').checked = !!s.newsSearch;
  $('newsMaxSearches').value = s.newsMaxSearches;
  $('quietStartHour').value = s.quietStartHour;
  $('quietStopHour').value = s.quietStopHour;
  $('budgetKind').value = (s.budget && s.budget.kind) || 'none';
  $('monthlyTokens').value = (s.budget && s.budget.monthlyTokens) || '';
  $('monthlyCost').value = (s.budget && s.budget.monthlyCost) || '';
  const n = s.notifications || {};
  $('notifyErrors').checked = !!n.errors;
  $('notifyIncoming').checked = !!n.incomingWhileHidden;
  $('hideContent').checked = !!n.hideContent;
  $('startHidden').checked = !!s.startHidden;
  $('autostart').checked = !!s.autostart;
  $('apiKey').value = '';
  $('apiKey').placeholder = v.apiKeyMasked ? v.apiKeyMasked : 'not set';
  $('keyHint').textContent = v.apiKeyMasked
    ? 'Stored in the ' + v.keyLocation + '. Leave empty to keep it.'
    : '';
  $('webSearchNote').textContent = v.webSearchNote || '';
  const banner = $('banner');
  banner.classList.toggle('demo', !!v.demoModel);
  if (v.demoModel) {
    banner.textContent = 'Demo: while the endpoint is empty, the built-in demo model answers (a fake that only says it is the demo; nothing leaves this computer). Enter a real endpoint, API key and model to try your own model in the demo.';
    banner.hidden = false;
  } else if (v.missing && v.missing.length) {
    banner.textContent = 'Clanker is not set up yet. Still needed: ' + v.missing.map(label).join(', ') + '.';
    banner.hidden = false;
  } else {
    banner.hidden = true;
  }
  const tbody = $('usage').querySelector('tbody');
  tbody.textContent = '';
  for (const r of v.usage || []) {
    const tr = document.createElement('tr');
    for (const c of [r.model, r.prompt, r.completion, r.total]) {
      const td = document.createElement('td');
      td.textContent = typeof c === 'number' ? c.toLocaleString() : c;
      tr.appendChild(td);
    }
    tbody.appendChild(tr);
  }
  $('noUsage').hidden = (v.usage || []).length > 0;
  $('diagnostics').textContent = v.diagnostics || 'No diagnostics were passed to this window. Use Diagnostics in the tray or app menu.';
}

const labels = { endpoint: 'API endpoint', apiKey: 'API key', model: 'model', userName: 'your name' };
const label = (f) => labels[f] || f;

function showErrors(errors) {
  for (const p of document.querySelectorAll('.err')) {
    const f = p.dataset.for;
    p.textContent = (errors && errors[f]) || '';
    const input = $(f);
    if (input) input.setAttribute('aria-invalid', p.textContent ? 'true' : 'false');
  }
}

let validateTimer = 0;
function validateSoon() {
  clearTimeout(validateTimer);
  validateTimer = setTimeout(async () => {
    try {
      showErrors(await api('Validate', collect()));
    } catch (e) {
      $('saveResult').textContent = 'Could not check the values: ' + e.message;
    }
  }, 200);
}

async function save(ev) {
  ev.preventDefault();
  const out = $('saveResult');
  out.className = '';
  out.textContent = 'Saving...';
  try {
    const key = $('apiKey').value.trim();
    const res = await api('Save', { settings: collect(), apiKey: key, clearApiKey: false });
    showErrors(res.errors);
    if (res.saved) {
      fill(res.view);
      out.className = 'ok';
      out.textContent = 'Saved. Clanker uses the new settings now.';
    } else {
      out.className = 'bad';
      out.textContent = 'Not saved: fix the fields marked in red.';
    }
  } catch (e) {
    out.className = 'bad';
    out.textContent = 'Not saved: ' + e.message;
  }
}

async function testConnection() {
  const out = $('testResult');
  const btn = $('test');
  btn.disabled = true;
  out.className = '';
  out.textContent = 'Testing...';
  try {
    const res = await api('TestConnection', {
      endpoint: $('endpoint').value, apiKey: $('apiKey').value.trim(), model: $('model').value,
    });
    out.className = res.ok ? 'ok' : 'bad';
    out.textContent = res.message;
    const list = $('modelList');
    const dl = $('models');
    list.textContent = '';
    dl.textContent = '';
    for (const m of res.models || []) {
      const li = document.createElement('li');
      li.textContent = m;
      list.appendChild(li);
      const o = document.createElement('option');
      o.value = m;
      dl.appendChild(o);
    }
    list.hidden = !(res.models || []).length;
  } catch (e) {
    out.className = 'bad';
    out.textContent = 'Test failed: ' + e.message;
  } finally {
    btn.disabled = false;
  }
}

function showTab(name) {
  for (const b of document.querySelectorAll('nav .tab')) b.classList.toggle('active', b.dataset.tab === name);
  for (const v of document.querySelectorAll('[data-view]')) v.hidden = v.dataset.view !== name;
}

async function copyDiagnostics() {
  const text = $('diagnostics').textContent;
  const out = $('copyResult');
  try {
    await navigator.clipboard.writeText(text);
    out.textContent = 'Copied.';
  } catch (e) {
    // Fallback where the async clipboard is unavailable: select the text for Ctrl+C.
    const r = document.createRange();
    r.selectNodeContents($('diagnostics'));
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(r);
    out.textContent = document.execCommand('copy') ? 'Copied.' : 'Selected: press Ctrl+C to copy.';
  }
}

async function init() {
  $('form').addEventListener('input', validateSoon);
  $('form').addEventListener('change', validateSoon);
  $('form').addEventListener('submit', save);
  $('test').addEventListener('click', testConnection);
  $('copyDiag').addEventListener('click', copyDiagnostics);
  for (const b of document.querySelectorAll('nav .tab')) b.addEventListener('click', () => showTab(b.dataset.tab));
  if (location.hash === '#diagnostics') showTab('diagnostics');
  try {
    const v = await api('Load');
    fill(v);
    if (v.startView === 'diagnostics') showTab('diagnostics');
    document.body.dataset.ready = 'true';
  } catch (e) {
    const banner = $('banner');
    banner.textContent = 'Could not read the settings: ' + e.message;
    banner.hidden = false;
    document.body.dataset.ready = 'error';
  }
}

init();
