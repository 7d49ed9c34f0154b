// The settings page. It talks to the Go SettingsService through Wails' binding in the
// settings window (the browser tests stand in a binding of their own that calls the same
// service over loopback). Every value shown comes from Go; the API key goes in and never
// comes back.
'use strict';

const $ = (id) => document.getElementById(id);

function api(method, arg) {
  const bound = window.go && window.go.settingswin && window.go.settingswin.SettingsService;
  if (!bound) {
    return Promise.reject(new Error('the settings service is not connected: open this page from Clanker\'s Settings'));
  }
  return arg === undefined ? bound[method]() : bound[method](arg);
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
    sound: $('notifySound').checked,
  };
  // Languages are typed as a list ("en_US, de_DE"); Go normalises and checks each.
  s.spellCheck = {
    enabled: $('spellCheck').checked,
    languages: $('spellLanguages').value.split(/[\s,;]+/).filter((l) => l !== ''),
  };
  s.startHidden = $('startHidden').checked;
  s.autostart = $('autostart').checked;
  s.updates = { check: $('updatesCheck').checked, feed: $('updateFeed').value };
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
  showBudgetKind();
  $('prices').querySelector('tbody').textContent = '';
  for (const e of v.prices || []) addPriceRow(e);
  const n = s.notifications || {};
  $('notifyErrors').checked = !!n.errors;
  $('notifyIncoming').checked = !!n.incomingWhileHidden;
  $('hideContent').checked = !!n.hideContent;
  $('notifySound').checked = !!n.sound;
  const sp = s.spellCheck || {};
  $('spellCheck').checked = !!sp.enabled;
  $('spellLanguages').value = (sp.languages || []).join(', ');
  $('startHidden').checked = !!s.startHidden;
  $('autostart').checked = !!s.autostart;
  const u = s.updates || {};
  $('updatesCheck').checked = !!u.check;
  $('updateFeed').value = u.feed || '';
  fillUpdate(v.update || {});
  $('apiKey').value = '';
  $('apiKey').placeholder = v.apiKeyMasked ? v.apiKeyMasked : 'not set';
  fillPresets(v.presets || []);
  $('preset').value = v.preset || '';
  showPreset();
  showKeyHint();
  $('webSearchNote').textContent = v.webSearchNote || '';
  const banner = $('banner');
  banner.classList.toggle('demo', !!v.demoModel);
  if (v.demoModel) {
    banner.textContent = 'Demo: while the endpoint is empty, the built-in demo model answers (a fake that only says it is the demo; nothing leaves this computer). Enter a real endpoint, API key and model to try your own model in the demo.';
    banner.hidden = false;
  } else if (v.missing && v.missing.length) {
    banner.textContent = 'Clanker is not set up yet: it still needs ' + v.missingText + '.';
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
  fillReport(v.report || {});
  // The memory editor is filled once: a settings save must not throw away an edit in it.
  if (!conversationsLoaded) {
    fillConversations(v.conversations || []);
    conversationsLoaded = true;
  }
  $('readOnly').textContent = v.readOnly || '';
  $('readOnly').hidden = !v.readOnly;
  $('diagnostics').textContent = v.diagnostics || 'No diagnostics were passed to this window. Use Diagnostics in the tray or app menu.';
}

// Provider presets. Choosing one fills the endpoint and says where its key comes from; a
// server on this computer needs no key, so its stand-in key is filled in and its models are
// listed at once. Typing an endpoint picks the preset it belongs to, or Custom.
let presets = [];

function fillPresets(list) {
  if (presets.length) return; // the options are made once; a save must not rebuild them
  presets = list;
  const sel = $('preset');
  const custom = sel.querySelector('option[value="custom"]');
  for (const p of list) {
    const o = document.createElement('option');
    o.value = p.id;
    o.textContent = p.name;
    sel.insertBefore(o, custom);
  }
}

const presetById = (id) => presets.find((p) => p.id === id);

// Endpoints compare as the Go side normalises them: case of scheme and host, and a trailing
// slash, make no difference.
function sameEndpoint(a, b) {
  const norm = (e) => {
    const t = (e || '').trim().replace(/\/+$/, '');
    try {
      const u = new URL(t);
      return (u.protocol + '//' + u.host + u.pathname).replace(/\/+$/, '').toLowerCase();
    } catch (_) {
      return t.toLowerCase();
    }
  };
  return norm(a) === norm(b);
}

// storedKeyFits says whether the stored key was saved for endpoint, so Test connection and
// Save may use it there.
function storedKeyFits(endpoint) {
  const saved = view && view.settings && view.settings.endpoint;
  return !!(view && view.apiKeyMasked) && (!saved || sameEndpoint(saved, endpoint));
}

function showPreset() {
  const p = presetById($('preset').value);
  $('presetHint').textContent = p ? p.hint : ($('preset').value === 'custom' ? 'Any OpenAI-compatible server: enter its base URL (https, or http on this computer).' : '');
  $('keyPage').hidden = !(p && p.keyUrl);
  if (p && p.keyUrl) {
    $('keyLink').textContent = p.keyUrl.replace(/^https:\/\//, '');
    $('keyLink').href = p.keyUrl;
    $('keyLink').dataset.url = p.keyUrl;
  }
  $('linkResult').textContent = '';
}

function showKeyHint() {
  const v = view || {};
  const typed = $('apiKey').value.trim();
  const p = presetById($('preset').value);
  let hint = '';
  if (p && p.standInKey && typed === p.standInKey) {
    hint = p.name + ' needs no key: Clanker sends "' + p.standInKey + '", which it ignores.';
  } else if (v.apiKeyMasked && !typed && !storedKeyFits($('endpoint').value)) {
    hint = 'The stored key was saved for ' + v.settings.endpoint + ': enter the key for this endpoint.';
  } else if (v.apiKeyMasked) {
    hint = 'Stored in the ' + v.keyLocation + '. Leave empty to keep it.';
  }
  if (v.keyNote) hint = (hint ? hint + ' ' : '') + v.keyNote;
  $('keyHint').textContent = hint;
}

function choosePreset() {
  const id = $('preset').value;
  const p = presetById(id);
  showPreset();
  if (id === 'custom') $('endpoint').focus();
  if (p) {
    $('endpoint').value = p.endpoint;
    const typed = $('apiKey').value.trim();
    const otherStandIn = presets.some((q) => q.standInKey && q.standInKey === typed);
    if (p.standInKey && (!typed || otherStandIn) && !storedKeyFits(p.endpoint)) {
      $('apiKey').value = p.standInKey;
    } else if (!p.standInKey && otherStandIn) {
      $('apiKey').value = '';
    }
    if (!p.standInKey) $('apiKey').focus();
  }
  showKeyHint();
  validateSoon();
  // A server on this computer needs no key, so its models can be listed right away.
  if (p && p.standInKey) testConnection();
}

// Typing an endpoint selects the preset it belongs to (or Custom).
function endpointTyped() {
  const e = $('endpoint').value;
  const p = presets.find((x) => sameEndpoint(x.endpoint, e));
  const id = p ? p.id : (e.trim() ? 'custom' : '');
  if ($('preset').value !== id) {
    $('preset').value = id;
    showPreset();
  }
  showKeyHint();
}

// The update the app's last check found, and how the checks stand. The version and the page
// come from the release feed: shown as text, opened only through OpenLink.
function fillUpdate(u) {
  $('updateBanner').hidden = !u.available;
  $('updateText').textContent = u.available || '';
  $('updateLink').dataset.url = u.url || '';
  $('updateResult').textContent = '';
  $('updateStatus').textContent = u.status || '';
}

async function openLink(url, out) {
  try {
    await api('OpenLink', url);
    out.className = '';
    out.textContent = 'Opened in your browser.';
  } catch (e) {
    out.className = 'bad';
    out.textContent = e.message;
  }
}

async function openKeyPage(ev) {
  ev.preventDefault();
  await openLink($('keyLink').dataset.url, $('linkResult'));
}

async function openUpdatePage(ev) {
  ev.preventDefault();
  await openLink($('updateLink').dataset.url, $('updateResult'));
}

// Model prices. Model names come from the user and from the store (conversation models,
// usage): they are only ever form values.
function addPriceRow(e) {
  const tr = document.createElement('tr');
  tr.className = 'price';
  const cell = (cls, value, aria, extra) => {
    const td = document.createElement('td');
    const i = document.createElement('input');
    i.className = cls;
    i.value = value || '';
    i.autocomplete = 'off';
    i.setAttribute('aria-label', aria);
    Object.assign(i, extra || {});
    td.appendChild(i);
    tr.appendChild(td);
    return i;
  };
  cell('priceModel', e.model, 'Model name').setAttribute('list', 'models');
  cell('pricePrompt', e.prompt, 'Prompt price per million tokens', { inputMode: 'decimal', placeholder: 'e.g. 0.25' });
  cell('priceCompletion', e.completion, 'Completion price per million tokens', { inputMode: 'decimal', placeholder: 'e.g. 2' });
  const td = document.createElement('td');
  const rm = document.createElement('button');
  rm.type = 'button';
  rm.textContent = 'Remove';
  rm.setAttribute('aria-label', 'Remove this model price');
  rm.addEventListener('click', () => { tr.remove(); validateSoon(); });
  td.appendChild(rm);
  tr.appendChild(td);
  $('prices').querySelector('tbody').appendChild(tr);
  return tr;
}

function priceEntries() {
  return Array.from($('prices').querySelectorAll('tbody tr')).map((tr) => ({
    model: tr.querySelector('.priceModel').value,
    prompt: tr.querySelector('.pricePrompt').value,
    completion: tr.querySelector('.priceCompletion').value,
  }));
}

// Only the limit that belongs to the chosen budget kind is shown.
function showBudgetKind() {
  const kind = $('budgetKind').value;
  $('tokensLimit').hidden = kind !== 'tokens';
  $('costLimit').hidden = kind !== 'cost';
}

// The price sentences name the model in quotes: its line is marked too.
function markPriceRows(msg) {
  for (const tr of $('prices').querySelectorAll('tbody tr')) {
    const name = tr.querySelector('.priceModel').value.trim();
    const bad = !!msg && name !== '' && msg.includes(JSON.stringify(name));
    for (const i of tr.querySelectorAll('input')) i.setAttribute('aria-invalid', bad ? 'true' : 'false');
  }
}


function showErrors(errors, root) {
  for (const p of (root || $('form')).querySelectorAll('.err')) {
    const f = p.dataset.for;
    p.textContent = (errors && errors[f]) || '';
    const input = $(f);
    if (input) input.setAttribute('aria-invalid', p.textContent ? 'true' : 'false');
  }
  if (!root) markPriceRows(errors && errors.prices);
}

let validateTimer = 0;
function validateSoon() {
  clearTimeout(validateTimer);
  validateTimer = setTimeout(async () => {
    try {
      showErrors(await api('Validate', { settings: collect(), prices: priceEntries() }));
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
    const res = await api('Save', { settings: collect(), prices: priceEntries(), apiKey: key, clearApiKey: false });
    showErrors(res.errors);
    if (res.saved) {
      fill(res.view);
      out.className = 'ok';
      out.textContent = 'Saved. Clanker uses the new settings now.';
    } else if (res.message) {
      out.className = 'bad';
      out.textContent = 'Not saved: ' + res.message;
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
    // Model names come from the server: set as text and values only.
    for (const m of res.models || []) {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'pickModel';
      b.textContent = m;
      b.setAttribute('aria-pressed', String(m === $('model').value.trim()));
      b.addEventListener('click', () => pickModel(m));
      li.appendChild(b);
      list.appendChild(li);
      const o = document.createElement('option');
      o.value = m;
      dl.appendChild(o);
    }
    list.hidden = !(res.models || []).length;
    $('modelListHint').hidden = list.hidden;
  } catch (e) {
    out.className = 'bad';
    out.textContent = 'Test failed: ' + e.message;
  } finally {
    btn.disabled = false;
  }
}

function pickModel(m) {
  $('model').value = m;
  for (const b of $('modelList').querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.textContent === m));
  validateSoon();
}

// Usage. Every value is set as text: conversation IDs come from the Messages page.
const fmtNum = (n) => Number(n || 0).toLocaleString();
const fmtCost = (c) => (c < 0 ? '-' : Number(c).toFixed(4));

function row(cells) {
  const tr = document.createElement('tr');
  for (const c of cells) {
    const td = document.createElement('td');
    if (c instanceof Node) {
      td.className = 'bar';
      td.appendChild(c);
    } else {
      td.textContent = c;
    }
    tr.appendChild(td);
  }
  return tr;
}

function fillReport(r) {
  const days = r.days || [];
  const convs = r.conversations || [];
  $('usageRange').textContent = r.from ? 'Last 30 days: ' + r.from + ' to ' + r.to + '.' : '';
  const max = Math.max(1, ...days.map((d) => d.total));
  const dt = $('usageDays').querySelector('tbody');
  dt.textContent = '';
  for (const d of days) {
    const bar = document.createElement('span');
    bar.style.width = Math.max(1, Math.round((100 * d.total) / max)) + '%';
    dt.appendChild(row([d.key, fmtNum(d.requests), fmtNum(d.prompt), fmtNum(d.completion), fmtNum(d.total), fmtCost(d.cost), bar]));
  }
  const ct = $('usageConvs').querySelector('tbody');
  ct.textContent = '';
  for (const c of convs) {
    ct.appendChild(row([c.name || 'Conversation ' + c.key, fmtNum(c.requests), fmtNum(c.prompt), fmtNum(c.completion), fmtNum(c.total), fmtCost(c.cost)]));
  }
  if (days.length) {
    const t = r.total || {};
    const tr = row(['Total', fmtNum(t.requests), fmtNum(t.prompt), fmtNum(t.completion), fmtNum(t.total), fmtCost(t.cost)]);
    tr.className = 'total';
    dt.appendChild(tr);
  }
  $('usageDays').hidden = !days.length;
  $('usageConvs').hidden = !convs.length;
  $('noDays').hidden = days.length > 0;
  $('noConvUsage').hidden = convs.length > 0;
  // Costs are known only from prices per model; with none set the cost column is left out.
  for (const cell of document.querySelectorAll('#usageDays tr > :nth-child(6), #usageConvs tr > :nth-child(6)')) {
    cell.hidden = !r.priced;
  }
  const unpriced = r.unpriced || [];
  let note = '';
  if (r.priced && unpriced.length) {
    note = 'No price is set for ' + unpriced.join(', ') + ', so "-" stands for an unknown cost. Add prices in Settings > Budget > Model prices.';
  } else if (!r.priced && days.length) {
    note = 'Costs are shown once model prices are set in Settings > Budget > Model prices.';
  }
  $('costNote').textContent = note;
  $('goPrices').hidden = !note;
}

// Memory. Conversation IDs, names, summaries and profiles come from the Messages page or
// the model: all of it is set as text or as form values, never as HTML.
let conversations = [];
let conversationsLoaded = false;

// A conversation is shown by its name as Messages shows it; the id only for one Clanker has
// not seen a name for, with the people it keeps notes about.
function conversationLabel(c) {
  if (c.name) return c.name + ' (' + c.mode + ')';
  const names = (c.profiles || []).map((p) => p.name).slice(0, 4).join(', ');
  return 'Conversation ' + c.id + ' (' + c.mode + ')' + (names ? ' - ' + names : '');
}

function fillConversations(list) {
  conversations = list;
  const sel = $('conversation');
  const keep = sel.value;
  sel.textContent = '';
  for (const c of list) {
    const o = document.createElement('option');
    o.value = c.id;
    o.textContent = conversationLabel(c);
    sel.appendChild(o);
  }
  $('noConversations').hidden = list.length > 0;
  $('memoryEditor').hidden = list.length === 0;
  if (list.some((c) => c.id === keep)) sel.value = keep;
  showConversation();
}

function current() {
  return conversations.find((c) => c.id === $('conversation').value);
}

function addProfileRow(name, notes) {
  const div = document.createElement('div');
  div.className = 'profile';
  const n = document.createElement('input');
  n.className = 'profileName';
  n.placeholder = 'Name';
  n.value = name || '';
  const t = document.createElement('textarea');
  t.className = 'profileNotes';
  t.rows = 2;
  t.value = notes || '';
  const rm = document.createElement('button');
  rm.type = 'button';
  rm.textContent = 'Remove';
  rm.addEventListener('click', () => div.remove());
  div.append(n, t, rm);
  $('profiles').appendChild(div);
}

function showConversation() {
  const c = current();
  clearArmed();
  showErrors({}, $('memoryEditor'));
  $('memoryResult').textContent = '';
  $('modelResult').textContent = '';
  if (!c) return;
  $('conversationInfo').textContent = 'Mode: ' + c.mode + (c.lastSeen ? '. Last seen ' + c.lastSeen + '.' : '.');
  $('summary').value = c.summary || '';
  $('customization').value = c.customization || '';
  $('profiles').textContent = '';
  for (const p of c.profiles || []) addProfileRow(p.name, p.notes);
  $('modelOverride').value = c.modelOverride || '';
  const global = view && view.settings && view.settings.model;
  $('modelOverride').placeholder = global ? global + ' (the model in Settings)' : 'the model in Settings';
  $('modelOverrideHint').textContent = 'Leave empty to use the model in Settings' + (global ? ' (' + global + ')' : '') + '.';
}

function replaceConversation(v) {
  conversations = conversations.map((c) => (c.id === v.id ? v : c));
  const o = Array.from($('conversation').options).find((x) => x.value === v.id);
  if (o) o.textContent = conversationLabel(v);
}

async function conversationCall(method, arg, out, okText) {
  out.className = '';
  out.textContent = 'Saving...';
  try {
    const res = await api(method, arg);
    showErrors(res.errors, $('memoryEditor'));
    if (res.saved) {
      replaceConversation(res.conversation);
      showConversation();
      out.className = 'ok';
      out.textContent = okText;
    } else {
      out.className = 'bad';
      out.textContent = 'Not saved: ' + (res.message || 'fix the fields marked in red.');
    }
  } catch (e) {
    out.className = 'bad';
    out.textContent = 'Not saved: ' + e.message;
  }
}

function saveMemory() {
  const profiles = Array.from($('profiles').querySelectorAll('.profile')).map((d) => ({
    name: d.querySelector('.profileName').value,
    notes: d.querySelector('.profileNotes').value,
  }));
  return conversationCall('SaveMemory', {
    conversation: $('conversation').value, summary: $('summary').value,
    customization: $('customization').value, profiles,
  }, $('memoryResult'), 'Saved. Clanker uses this memory from its next answer on.');
}

// Clear asks for a second click, so one stray click never deletes anything.
let clearTimer = 0;
function clearArmed() {
  clearTimeout(clearTimer);
  $('clearMemory').textContent = 'Clear memory';
  delete $('clearMemory').dataset.armed;
}

function clearMemory() {
  const b = $('clearMemory');
  if (!b.dataset.armed) {
    b.dataset.armed = 'true';
    b.textContent = 'Click again to clear';
    clearTimer = setTimeout(clearArmed, 5000);
    return;
  }
  clearArmed();
  conversationCall('ClearMemory', { conversation: $('conversation').value }, $('memoryResult'),
    'Cleared: the summary, persona customisation and profiles of this conversation are gone.');
}

function saveModel() {
  return conversationCall('SetModelOverride', { conversation: $('conversation').value, model: $('modelOverride').value },
    $('modelResult'), 'Saved. The next request in this conversation uses it.');
}

// From the Usage tab to the price list: the first line still without prices gets the focus.
function goToPrices() {
  showTab('settings');
  const rows = Array.from($('prices').querySelectorAll('tbody tr'));
  const open = rows.find((tr) => tr.querySelector('.pricePrompt').value.trim() === '') || addPriceRow({});
  open.scrollIntoView({ block: 'center' });
  const input = open.querySelector('.priceModel').value.trim() ? open.querySelector('.pricePrompt') : open.querySelector('.priceModel');
  input.focus();
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
  $('preset').addEventListener('change', choosePreset);
  $('endpoint').addEventListener('input', endpointTyped);
  $('apiKey').addEventListener('input', showKeyHint);
  $('keyLink').addEventListener('click', openKeyPage);
  $('updateLink').addEventListener('click', openUpdatePage);
  $('copyDiag').addEventListener('click', copyDiagnostics);
  $('conversation').addEventListener('change', showConversation);
  $('addProfile').addEventListener('click', () => addProfileRow('', ''));
  $('saveMemory').addEventListener('click', saveMemory);
  $('clearMemory').addEventListener('click', clearMemory);
  $('saveModel').addEventListener('click', saveModel);
  $('budgetKind').addEventListener('change', showBudgetKind);
  $('addPrice').addEventListener('click', () => addPriceRow({}).querySelector('input').focus());
  $('goPrices').addEventListener('click', goToPrices);
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
