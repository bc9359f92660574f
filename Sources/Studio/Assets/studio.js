// vidfx studio: the page. Everything it shows comes from the server's API; the chain
// is the one string the command line takes, kept in the URL's fragment.
'use strict';

const $ = (id) => document.getElementById(id);

// The session's token comes in the address's fragment (#token=…), which no request
// carries. It is kept in memory and in this tab's session storage (no other port's page
// can read either; a cookie would go to every port of 127.0.0.1), taken out of the
// address bar and its history at once, and sent as a bearer token on every request.
const token = (() => {
  const params = new URLSearchParams(location.hash.slice(1));
  const given = params.get('token');
  if (given) {
    sessionStorage.setItem('vidfx-token', given);
    params.delete('token');
    const rest = params.toString();
    history.replaceState(null, '', location.pathname + (rest ? '#' + rest : ''));
    return given;
  }
  return sessionStorage.getItem('vidfx-token') || '';
})();

// fetch with the token. Pictures, videos and downloads come through here too, as blobs.
function api(url, options = {}) {
  return fetch(url, { ...options, headers: { ...(options.headers || {}), Authorization: `Bearer ${token}` } });
}

// A blob: URL for a file of the API, for an <img>, a <video> or a download link.
async function blobURL(url) {
  const response = await api(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return URL.createObjectURL(await response.blob());
}
const state = {
  effects: [], byName: {}, info: null,
  chain: [],            // [{name, values: {param: text}, enable: text|null, ease: text|null}]
  playing: true, tick: 0, ticks: 1, rate: [30, 1],
  edit: 0, sentAt: new Map(), latencies: [],
  outputs: [], render: null, tracks: new Map(), stillSeq: 0, stillDrawnSeq: 0, stillsDrawn: [], stillShown: null, scrubbing: false, ws: null,
};
// For tests and scripts: the state, and promises for what the page is about to show.
const stillWaiters = [];
window.studio = { state, nextStill: () => new Promise((r) => stillWaiters.push(r)) };

// MARK: numbers and times

function fmt(x) {
  if (Number.isInteger(x)) return String(x);
  return String(Number(x.toFixed(6)));
}
// The time given to `dump --at` for a tick: k/N rounded up to the microsecond, so the
// frame on screen then is tick k's (k/N itself may not be a whole microsecond).
function tickTime(tick) {
  const [n, d] = state.rate;
  const micro = Math.ceil((tick * d * 1e6) / n - 1e-6);
  return (micro / 1e6).toFixed(6).replace(/\.?0+$/, '') || '0';
}

// MARK: the chain's text (the command line's syntax: see EffectChain(parsing:))

function defaultText(p) {
  if (p.default === null || p.default === undefined) return null;
  if (Array.isArray(p.default)) return p.default.map(fmt).join(',');
  return typeof p.default === 'number' ? fmt(p.default) : String(p.default);
}

// Quoting, as the command line's (ChainSyntax): inside single quotes every character
// stands for itself; outside, a backslash makes the next separator or quote literal.
const SPECIAL = new Set([':', ',', "'", '\\', '=', '@']);

function splitOutside(text, separator) {
  const pieces = [];
  let current = '', quoted = false, escaped = false;
  for (const c of text) {
    if (escaped) { current += c; escaped = false; }
    else if (c === "'") { quoted = !quoted; current += c; }
    else if (c === '\\' && !quoted) { escaped = true; current += c; }
    else if (c === separator && !quoted) { pieces.push(current); current = ''; }
    else current += c;
  }
  pieces.push(current);
  return pieces;
}

function firstEquals(piece) {
  let quoted = false, escaped = false;
  for (let i = 0; i < piece.length; i++) {
    const c = piece[i];
    if (escaped) escaped = false;
    else if (c === "'") quoted = !quoted;
    else if (c === '\\' && !quoted) escaped = true;
    else if (c === '=' && !quoted) return i;
  }
  return -1;
}

function unquoted(raw) {
  let out = '', quoted = false, pending = false;
  for (const c of raw) {
    if (pending) { if (!SPECIAL.has(c)) out += '\\'; out += c; pending = false; }
    else if (c === "'") quoted = !quoted;
    else if (c === '\\' && !quoted) pending = true;
    else out += c;
  }
  return pending ? out + '\\' : out;
}

function quoted(value) {
  const s = String(value);
  if (![...s].some((c) => SPECIAL.has(c)) && !s.startsWith(' ') && !s.endsWith(' ')) return s;
  return "'" + s.split("'").join("'\\''") + "'";
}

function effectText(item) {
  const d = state.byName[item.name];
  const parts = [item.name];
  for (const p of d.parameters) {
    const v = item.values[p.name];
    if (v === undefined || v === null || v === '' || v === defaultText(p)) continue;
    parts.push(`${p.name}=${p.type === 'text' ? quoted(v) : v}`);
  }
  if (item.ease) parts.push(`ease=${item.ease}`);
  if (item.enable) parts.push(`enable=${item.enable}`);
  return parts.join(':');
}

function chainText() { return state.chain.map(effectText).join(','); }

// A chain entry that names a shader file (a file of the outputs folder): its effect comes
// from the file, described by the studio (/api/effect), asked once a name.
const SHADER_FILE = /\.(glsl|frag|metal|hook)(#[A-Za-z_][A-Za-z0-9_]*)?$/i;
async function describeShaders(text) {
  for (const piece of splitOutside(text, ',')) {
    const head = splitOutside(piece.trim(), ':')[0] || '';
    const eq = firstEquals(head);
    const name = eq >= 0 ? head.slice(0, eq) : head;
    if (!SHADER_FILE.test(name) || state.byName[name]) continue;
    const response = await api('/api/effect?name=' + encodeURIComponent(name));
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(answer.error || `${name}: ${response.status}`);
    state.byName[name] = answer;
  }
}

async function parseChainWithShaders(text) {
  await describeShaders(text);
  return parseChain(text);
}

function parseChain(text) {
  if (text.trim() === '') return [];
  // A comma piece that does not start with a letter continues the effect before it
  // (colour components, keyframes).
  const items = [];
  for (const piece of splitOutside(text, ',')) {
    const t = piece.trim();
    if (t && !/^\p{L}/u.test(t) && items.length) items[items.length - 1] += ',' + t;
    else items.push(piece);
  }
  return items.map((raw) => {
    const item = raw.trim();
    if (!item) throw new Error(`empty effect in chain '${text}'`);
    const parts = [];
    for (const piece of splitOutside(item, ':')) {
      // Times hold colons too (enable=0:10-0:20, 2@1:30).
      const last = parts[parts.length - 1];
      if (/^\p{N}/u.test(piece) && !piece.includes('=') && last !== undefined && last.includes('=')
          && (parts.length > 1 || last.includes('@') || last.startsWith('enable='))) parts[parts.length - 1] += ':' + piece;
      else parts.push(piece);
    }
    let head = parts.shift();
    let positional = null;
    const eq = firstEquals(head);
    if (eq >= 0) { positional = unquoted(head.slice(eq + 1)); head = head.slice(0, eq); }
    const d = state.byName[head];
    if (!d) throw new Error(`unknown effect '${head}'`);
    const out = { name: head, values: {}, enable: null, ease: null };
    const own = (k) => d.parameters.some((p) => p.name === k);
    parts.forEach((part, i) => {
      const e = firstEquals(part);
      if (e >= 0) {
        const k = part.slice(0, e), v = unquoted(part.slice(e + 1));
        if (k === 'enable' && !own(k)) out.enable = v;
        else if (k === 'ease' && !own(k)) out.ease = v;
        else if (!own(k)) throw new Error(`${head}: no parameter '${k}'`);
        else out.values[k] = v;
      } else if (i === 0 && positional === null) {
        positional = unquoted(part);
      } else {
        throw new Error(`${head}: '${part}' is not name=value`);
      }
    });
    if (positional !== null) {
      if (!d.parameters.length) throw new Error(`${head}: takes no parameters`);
      out.values[d.parameters[0].name] = positional;
    }
    return out;
  });
}

// MARK: keyframes (numbers only in the controls; any keys can be typed in the chain)

function keysOf(text) {
  if (!text || !text.includes('@')) return null;
  return text.split(',').map((k) => { const [v, t] = k.split('@'); return { v, t: parseFloat(t) }; });
}
function setKey(text, time, value) {
  const keys = (keysOf(text) || []).filter((k) => Math.abs(k.t - time) > 1e-6);
  keys.push({ v: value, t: time });
  keys.sort((a, b) => a.t - b.t);
  return keys.map((k) => `${k.v}@${fmt(k.t)}`).join(',');
}
function valueAt(text, time) {
  const keys = keysOf(text);
  if (!keys) return text;
  let best = keys[0];
  for (const k of keys) if (k.t <= time + 1e-9) best = k;
  return best.v;
}

// MARK: the effect panel, generated from the descriptors

function control(item, index, p) {
  const row = document.createElement('div');
  row.className = 'param';
  const label = document.createElement('label');
  label.textContent = p.name + (p.unit ? ` (${p.unit})` : '');
  label.title = p.help;
  row.append(label);
  const current = item.values[p.name] ?? defaultText(p) ?? '';
  const set = (v) => { item.values[p.name] = v; changed(false); };
  const attrs = (el) => { el.dataset.effect = index; el.dataset.param = p.name; return el; };
  const box = document.createElement('div');
  box.className = 'value';
  if (p.type === 'float' || p.type === 'int') {
    const lo = p.sliderMin ?? p.min ?? 0, hi = p.sliderMax ?? p.max ?? Math.max(1, 2 * (Number(current) || 1));
    const range = attrs(document.createElement('input'));
    range.type = 'range'; range.min = lo; range.max = hi;
    range.step = p.type === 'int' ? 1 : (hi - lo) / 200;
    const number = attrs(document.createElement('input'));
    number.type = 'number'; number.step = range.step;
    const shown = valueAt(current, Number(tickTime(state.tick)));
    range.value = shown; number.value = shown;
    const put = (v) => {
      const keyed = keysOf(item.values[p.name]);
      set(keyed ? setKey(item.values[p.name], Number(tickTime(state.tick)), v) : v);
    };
    range.addEventListener('input', () => { number.value = range.value; put(fmt(Number(range.value))); });
    number.addEventListener('change', () => { range.value = number.value; put(fmt(Number(number.value))); });
    box.append(range);
    row.append(box, number);
    if (p.animatable) {
      const key = document.createElement('button');
      key.type = 'button'; key.textContent = '◆'; key.title = 'Set a key at the playhead';
      key.dataset.key = p.name; key.dataset.effect = index;
      key.addEventListener('click', () => {
        item.values[p.name] = setKey(item.values[p.name] ?? defaultText(p), Number(tickTime(state.tick)), fmt(Number(range.value)));
        changed(true);  // redrawn with the keys listed
      });
      row.append(key);
      if (keysOf(current)) {
        const keys = document.createElement('div');
        keys.className = 'keys'; keys.textContent = 'keys: ' + current;
        row.append(keys);
      }
    }
    return row;
  }
  if (p.type === 'choice') {
    const select = attrs(document.createElement('select'));
    for (const o of p.options) select.append(new Option(o, o, false, o === current));
    select.addEventListener('change', () => set(select.value));
    box.append(select);
  } else if (p.type === 'color') {
    const parts = current.split(',').map(Number);
    const picker = attrs(document.createElement('input'));
    picker.type = 'color';
    picker.value = '#' + parts.slice(0, 3).map((c) => Math.round(Math.min(1, Math.max(0, c || 0)) * 255).toString(16).padStart(2, '0')).join('');
    picker.addEventListener('input', () => {
      const rgb = [1, 3, 5].map((i) => parseInt(picker.value.slice(i, i + 2), 16) / 255);
      set([...rgb, parts[3] ?? 1].map(fmt).join(','));
    });
    box.append(picker);
  } else if (p.type === 'vector') {
    const parts = current.split(',');
    const vector = document.createElement('div');
    vector.className = 'vector';
    const inputs = parts.map((v, i) => {
      const n = attrs(document.createElement('input'));
      n.type = 'number'; n.step = 0.05; n.value = v; n.dataset.component = i;
      n.addEventListener('change', () => set(inputs.map((x) => fmt(Number(x.value))).join(',')));
      return n;
    });
    vector.append(...inputs);
    box.append(vector);
  } else if (p.type === 'text') {
    const input = attrs(document.createElement('input'));
    input.type = 'text'; input.value = current;
    input.addEventListener('change', () => set(input.value));
    box.append(input);
  } else if (p.type === 'file') {
    const select = attrs(document.createElement('select'));
    select.append(new Option('(choose a file in the outputs folder)', ''));
    for (const o of state.outputs) select.append(new Option(o.name, o.name, false, o.name === current));
    if (current && !state.outputs.some((o) => o.name === current)) select.append(new Option(current, current, false, true));
    select.addEventListener('change', () => set(select.value));
    box.append(select);
  }
  row.append(box);
  return row;
}

function renderPanel() {
  const list = $('chain-list');
  list.replaceChildren();
  state.chain.forEach((item, index) => {
    const d = state.byName[item.name];
    const li = document.createElement('li');
    li.className = 'effect'; li.dataset.name = item.name;
    const head = document.createElement('div');
    head.className = 'head';
    const title = document.createElement('strong');
    title.textContent = item.name; title.title = d.summary;
    const button = (text, tip, act) => {
      const b = document.createElement('button');
      b.type = 'button'; b.textContent = text; b.title = tip; b.dataset.action = tip; b.dataset.effect = index;
      b.addEventListener('click', act);
      return b;
    };
    const move = (delta) => () => {
      const j = index + delta;
      if (j < 0 || j >= state.chain.length) return;
      [state.chain[index], state.chain[j]] = [state.chain[j], state.chain[index]];
      changed(true);
    };
    head.append(title, button('↑', 'up', move(-1)), button('↓', 'down', move(1)),
      button('✕', 'remove', () => { state.chain.splice(index, 1); changed(true); }));
    li.append(head);
    for (const p of d.parameters) li.append(control(item, index, p));
    const enable = document.createElement('div');
    enable.className = 'param';
    const label = document.createElement('label');
    label.textContent = 'enable';
    label.title = 'When the effect runs: seconds, start-end, comma-separated (0-2.5,4-)';
    const input = document.createElement('input');
    input.type = 'text'; input.value = item.enable ?? ''; input.placeholder = 'always';
    input.dataset.effect = index; input.dataset.param = 'enable';
    input.addEventListener('change', () => { item.enable = input.value.trim() || null; changed(false); });
    enable.append(label, input);
    li.append(enable);
    list.append(li);
  });
}

// MARK: changes go everywhere: text, fragment, commands, the live player, the still

function commandOptions() { return (state.info.commandOptions || []).map(quote).join(' '); }
function quote(word) {
  return /^[\w\-./:=,@%+]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
// The exported review the renders and stills use, when chosen.
function reviewedName() {
  return $('use-review').checked && state.review && state.review.exported ? state.review.exported : null;
}
function commands() {
  const text = chainText();
  const effects = text ? ` -e ${quote(text)}` : '';
  const extra = commandOptions() ? ' ' + commandOptions() : '';
  const input = quote(state.info.input);
  const reviewed = reviewedName() ? ` --use-detections ${quote(reviewedName())}` : '';
  $('command').textContent = `vidfx apply ${input}${effects} -o ${quote($('render-name').value || 'out.mp4')}${reviewed}${extra}`;
  $('still-command').textContent = `vidfx dump ${input} --at ${tickTime(state.tick)}${effects}${reviewed} -o frame${extra}`;
}

function changed(rebuild) {
  const text = chainText();
  if (rebuild) renderPanel();
  $('chain-text').value = text;
  $('chain-error').textContent = '';
  history.replaceState(null, '', '#chain=' + encodeURIComponent(text));
  commands();
  sendChain(text);
  if (!state.playing) requestStill();
}

// Numbered, so the frames an edit rendered can be told apart (the latency shown). Before
// the socket opens nothing is sent: opening sends the chain as it is then.
function sendChain(text) {
  if (!state.ws || state.ws.readyState !== WebSocket.OPEN) return;
  state.edit += 1;
  state.sentAt.set(state.edit, performance.now());
  send({ chain: text, edit: state.edit });
}

function send(message) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(message));
}

// MARK: the picture: live frames while playing, exact stills while paused

const screen = $('screen');
const context2d = screen.getContext('2d', { willReadFrequently: true });

function draw(bitmap, before) {
  if (screen.width !== bitmap.width || screen.height !== bitmap.height) {
    screen.width = bitmap.width; screen.height = bitmap.height;
  }
  context2d.drawImage(bitmap, 0, 0);
  if (before && before.width === bitmap.width) {
    const w = Math.round(bitmap.width * Number($('split').value));
    if (w > 0) context2d.drawImage(before, 0, 0, w, before.height, 0, 0, w, before.height);
  }
}

async function fetchStill(tick, text) {
  const reviewed = /\b(faceblur|facebox|qrbox)\b/.test(text) && reviewedName() ? `&detections=${encodeURIComponent(reviewedName())}` : '';
  // BMP: the same pixels as dump's PNG, without the compression that costs most of a still.
  const url = `/api/frame?t=${tickTime(tick)}&chain=${encodeURIComponent(text)}${reviewed}&format=bmp`;
  const response = await api(url);
  if (!response.ok) throw new Error((await response.json()).error);
  return createImageBitmap(await response.blob(), { colorSpaceConversion: 'none', premultiplyAlpha: 'none' });
}

async function requestStill() {
  const seq = ++state.stillSeq, tick = state.tick, text = chainText();
  const wipe = $('split-on').checked;
  try {
    const [after, before] = await Promise.all([fetchStill(tick, text), wipe ? fetchStill(tick, '') : null]);
    // While a hand drags, each still is drawn as it arrives unless a newer one is already
    // on screen: a stale answer (one asked for before it) is dropped.
    if (seq <= state.stillDrawnSeq || state.playing) return;
    state.stillDrawnSeq = seq;
    state.stillsDrawn.push({ tick, seq, at: performance.now() });
    if (state.stillsDrawn.length > 200) state.stillsDrawn.shift();
    draw(after, before);
    state.stillBitmap = after;
    drawReviewBoxes(tick);
    state.stillShown = { tick, time: tickTime(tick), chain: text, wipe };
    setStatus(`frame ${tick} (exact)`);
    // Whoever waits for the next still wants the one of the latest request.
    if (seq === state.stillSeq) while (stillWaiters.length) stillWaiters.shift()(state.stillShown);
  } catch (error) {
    if (seq === state.stillSeq) $('chain-error').textContent = String(error.message || error);
  }
}

async function onFrame(buffer) {
  const view = new DataView(buffer);
  const length = view.getUint32(0);
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, length)));
  if (!state.playing) return;
  const bitmap = await createImageBitmap(new Blob([new Uint8Array(buffer, 4 + length)], { type: 'image/jpeg' }));
  if (!state.playing) return;
  draw(bitmap, null);
  state.tick = header.tick;
  showTick();
  noteTracks(header);
  // The first frame rendered by an edit: how long the edit took to show.
  for (const [edit, at] of state.sentAt) {
    if (edit <= header.edit) {
      if (edit === header.edit) {
        const ms = performance.now() - at;
        state.latencies.push(ms);
        $('latency').textContent = `edit → frame ${ms.toFixed(0)} ms`;
      }
      state.sentAt.delete(edit);
    }
  }
}

// The tracks detection has followed (facebox, qrbox, faceblur): each with the ticks it was seen on.
function noteTracks(header) {
  const chainDetects = state.chain.some((item) => ['facebox', 'qrbox', 'faceblur'].includes(item.name));
  $('detections').hidden = !chainDetects;
  if (!chainDetects) return;
  for (const box of header.boxes || []) {
    const key = `${box.kind} ${box.track}`;
    const t = state.tracks.get(key) || { kind: box.kind, track: box.track, first: header.tick, last: header.tick, seen: 0 };
    t.first = Math.min(t.first, header.tick); t.last = Math.max(t.last, header.tick); t.seen += 1; t.box = box;
    state.tracks.set(key, t);
  }
  const rows = [...state.tracks.values()].sort((a, b) => a.first - b.first).map((t) => {
    const li = document.createElement('li');
    li.textContent = `${t.kind} #${t.track}: frames ${t.first + 1}–${t.last + 1}, at ${t.box.x},${t.box.y} ${t.box.w}×${t.box.h}`;
    return li;
  });
  $('track-list').replaceChildren(...rows);
}

function showTick() {
  if (!state.scrubbing) $('scrub').value = state.tick;
  $('counter').textContent = `${state.tick + 1} / ${state.ticks}`;
  drawStrip();
  commands();
}

// MARK: the timeline strip (thumbnails and cuts from /api/timeline, made once by the server)

// The first tick showing the picture on screen at `seconds`: k/N ≥ seconds.
function tickAt(seconds) {
  const [n, d] = state.rate;
  return Math.min(state.ticks - 1, Math.max(0, Math.ceil((seconds * n) / d - 1e-6)));
}

async function loadTimeline() {
  for (let wait = 250; ; wait = Math.min(wait * 2, 4000)) {
    const t = await (await api('/api/timeline')).json();
    if (t.state === 'failed') { $('strip').title = `No timeline: ${t.error}`; return; }
    if (t.state === 'ready') {
      const image = new Image();
      image.src = await blobURL(t.image);
      await image.decode();
      state.timeline = { ...t, image, cutTicks: t.cuts.map(tickAt) };
      document.body.dataset.timeline = 'ready';
      drawStrip();
      return;
    }
    await new Promise((r) => setTimeout(r, wait));
  }
}

function drawStrip() {
  const strip = $('strip');
  const g = strip.getContext('2d');
  g.clearRect(0, 0, strip.width, strip.height);
  const t = state.timeline;
  const x = (tick) => (tick / state.ticks) * strip.width;
  if (t) {
    // A film strip: slots of the thumbnails' shape side by side, each showing the
    // thumbnail of the time at its middle (the last one made at or before it).
    const slot = Math.max(8, (strip.height * t.width) / t.height);
    for (let left = 0; left < strip.width; left += slot) {
      const middle = ((left + slot / 2) / strip.width) * state.ticks;
      let i = 0;
      while (i + 1 < t.times.length && tickAt(t.times[i + 1]) <= middle) i++;
      g.drawImage(t.image, i * t.width, 0, t.width, t.height, left, 0, slot, strip.height);
    }
    g.fillStyle = '#ffd23c';
    for (const tick of t.cutTicks) g.fillRect(Math.round(x(tick)) - 1, 0, 2, strip.height);
  }
  g.fillStyle = '#6cb4ff';
  g.fillRect(Math.round(x(state.tick)), 0, 2, strip.height);
}

// Goes to `tick`, paused: its exact still now, and the player waiting there.
function goTo(tick) {
  if (state.playing) setPlaying(false);
  state.tick = Math.min(state.ticks - 1, Math.max(0, tick));
  showTick();
  requestStill();
  send({ seek: state.tick });
}

function stripTick(e) {
  const box = $('strip').getBoundingClientRect();
  return Math.floor(((e.clientX - box.left) / box.width) * state.ticks);
}
$('strip').addEventListener('pointerdown', (e) => {
  $('strip').setPointerCapture(e.pointerId);
  state.stripDrag = true;
  goTo(stripTick(e));
});
$('strip').addEventListener('pointermove', (e) => { if (state.stripDrag) goTo(stripTick(e)); });
$('strip').addEventListener('pointerup', () => { state.stripDrag = false; });

// The cut before or after the current tick (the clip's start and end when there is none).
function neighbourCut(direction) {
  const cuts = state.timeline ? state.timeline.cutTicks : [];
  if (direction < 0) return [0, ...cuts].filter((c) => c < state.tick).pop() ?? 0;
  return [...cuts, state.ticks - 1].find((c) => c > state.tick) ?? state.ticks - 1;
}

function setStatus(text) { $('status').textContent = text; }

// MARK: transport

function setPlaying(playing) {
  state.playing = playing;
  $('play').textContent = playing ? 'Pause' : 'Play';
  send({ play: playing });
  if (!playing) requestStill();
}

$('play').addEventListener('click', () => setPlaying(!state.playing));
document.addEventListener('keydown', (e) => {
  if (e.target !== document.body) return;  // keys typed into a control are the control's
  if (e.key === ' ') { e.preventDefault(); setPlaying(!state.playing); }
  else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
    e.preventDefault();
    const direction = e.key === 'ArrowLeft' ? -1 : 1;
    goTo(e.shiftKey ? neighbourCut(direction) : state.tick + direction);
  }
});
$('scrub').addEventListener('input', () => {
  state.scrubbing = true;
  if (state.playing) setPlaying(false);
  state.tick = Number($('scrub').value);
  showTick();
  requestStill();
});
$('scrub').addEventListener('change', () => {
  state.scrubbing = false;
  state.tick = Number($('scrub').value);
  send({ seek: state.tick });
});
$('split-on').addEventListener('change', () => {
  $('split').disabled = !$('split-on').checked;
  send({ split: $('split-on').checked ? Number($('split').value) : null });
  if (!state.playing) requestStill();
});
$('split').addEventListener('input', () => {
  send({ split: Number($('split').value) });
  if (!state.playing) requestStill();
});

// MARK: the chain text, the effect list, copying

$('add-effect').addEventListener('change', () => {
  const name = $('add-effect').value;
  $('add-effect').value = '';
  if (!name) return;
  state.chain.push({ name, values: {}, enable: null, ease: null });
  changed(true);
});
$('chain-text').addEventListener('change', async () => {
  try {
    state.chain = await parseChainWithShaders($('chain-text').value);
    $('chain-error').textContent = '';
    changed(true);
  } catch (error) {
    $('chain-error').textContent = error.message;
  }
});
async function copy(id) {
  const text = $(id).textContent;
  try { await navigator.clipboard.writeText(text); setStatus('copied'); } catch { setStatus('select the command and copy it'); }
  state.copied = text;
  return text;
}
$('copy').addEventListener('click', () => copy('command'));
$('copy-still').addEventListener('click', () => copy('still-command'));
$('render-name').addEventListener('input', commands);

// MARK: renders

async function startRender() {
  const body = { chain: chainText(), output: $('render-name').value };
  if (reviewedName()) body.detections = reviewedName();
  $('render-result').textContent = '';
  const response = await api('/api/render', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await response.json();
  if (!response.ok) { $('render-state').textContent = answer.error; return; }
  state.render = { id: answer.id, progress: [] };
  $('cancel').disabled = false;
  $('render').disabled = true;
  pollRender(answer.id);
}

async function pollRender(id) {
  const s = await (await api(`/api/render/${id}`)).json();
  if (!state.render || state.render.id !== id) return;
  state.render.last = s;
  state.render.progress.push(s.progress);
  $('render-progress').value = s.progress;
  const eta = s.eta !== undefined ? ` · ETA ${Math.ceil(s.eta)} s` : '';
  $('render-state').textContent = s.state === 'queued' ? `queued, ${s.place === 1 ? 'next' : 'place ' + s.place}`
    : `${s.state} ${(100 * s.progress).toFixed(0)}%${s.state === 'running' ? eta : ''}${s.error ? ' · ' + s.error : ''}`;
  if (s.state === 'running' || s.state === 'queued') { setTimeout(() => pollRender(id), 250); return; }
  $('cancel').disabled = true;
  $('render').disabled = false;
  if (s.state === 'done') {
    const a = document.createElement('a');
    a.dataset.source = `/outputs/${encodeURIComponent(s.output)}`;
    a.href = await blobURL(a.dataset.source); a.textContent = s.output; a.download = s.output;
    const video = document.createElement('video');
    video.src = a.href; video.controls = true; video.style.width = '100%';
    $('render-result').replaceChildren(a, video);
    loadOutputs();
  }
}

$('render').addEventListener('click', startRender);
$('cancel').addEventListener('click', () => { if (state.render) api(`/api/render/${state.render.id}`, { method: 'DELETE' }); });

async function loadOutputs() {
  state.outputs = await (await api('/api/outputs')).json();
}


// MARK: the shader workbench: a shader written here, compiled as it is typed (about 300 ms
// after the last key), shown on the clip as an effect of the chain, named by its file in the
// outputs folder; errors at their line and column, the last good picture kept.

const TEMPLATES = {
  color: ['colour.glsl', `// A colour shader: each pixel's new colour from its own (docs/shaders.md).
uniform float amount; // range 0…1; default 1; How far towards the negative.

vec4 effect(vec2 position, vec4 color) {
    vec3 negative = 1.0 - color.rgb;
    return vec4(mix(color.rgb, negative, amount), color.a);
}
`],
  layer: ['layer.glsl', `// A layer shader: source(p) reads the frame anywhere, p in pixels from the top-left.
uniform float spread; // range 0…40; default 6; How far apart the taps are, in pixels.

vec4 effect(vec2 position) {
    vec4 sum = vec4(0.0);
    for (int k = -2; k <= 2; k++) sum += source(position + vec2(float(k) * spread, 0.0));
    return sum / 5.0;
}
`],
  distortion: ['distortion.glsl', `// A distortion shader: where each pixel reads the frame from.
uniform float amplitude; // range 0…50; default 8; Height of the waves in pixels.
uniform float speed;     // range 0…10; default 1; Waves a second.

vec2 effect(vec2 position) {
    return position + vec2(0.0, amplitude * sin(position.x / 40.0 + time * speed * 6.2832));
}
`],
  shadertoy: ['toy.glsl', `// Shadertoy's form: iChannel0 is the frame, fragCoord from the bottom-left.
void mainImage(out vec4 fragColor, in vec2 fragCoord) {
    vec2 uv = fragCoord / iResolution.xy;
    vec3 c = texture(iChannel0, uv).rgb;
    fragColor = vec4(c * (0.7 + 0.3 * sin(iTime * 2.0 + uv.x * 6.2832)), 1.0);
}
`],
  metal: ['swiftui.metal', `#include <metal_stdlib>
#include <SwiftUI/SwiftUI.h>
using namespace metal;

[[ stitchable ]]
half4 warm(float2 position, half4 color, float amount = 0.8) {
    half3 tinted = color.rgb * half3(1.1h, 1.0h, 0.8h);
    return half4(mix(color.rgb, saturate(tinted), half(amount)), color.a);
}
`],
};

state.shader = null; // {name, text, compiled: text|null, saved: text|null, timer, seq}

function shaderNames() {
  return state.outputs.map((o) => o.name).filter((n) => SHADER_FILE.test(n)).sort();
}
function freeShaderName(base) {
  const taken = new Set([...state.outputs.map((o) => o.name), ...state.chain.map((i) => i.name)]);
  if (!taken.has(base)) return base;
  const dot = base.lastIndexOf('.');
  for (let i = 2; ; i++) { const n = `${base.slice(0, dot)}-${i}${base.slice(dot)}`; if (!taken.has(n)) return n; }
}
function listShaders() {
  const select = $('shader-open');
  select.replaceChildren(new Option('Open…', ''), ...shaderNames().map((n) => new Option(n, n)));
}

function numberLines(bad) {
  const count = $('shader-text').value.split('\n').length;
  const gutter = $('shader-lines');
  gutter.replaceChildren();
  for (let i = 1; i <= count; i++) {
    const line = document.createElement('span');
    line.textContent = i + '\n';
    if (i === bad) line.className = 'bad';
    gutter.append(line);
  }
  gutter.scrollTop = $('shader-text').scrollTop;
}

function shaderState() {
  const sh = state.shader;
  if (!sh) return;
  const unsaved = sh.saved !== sh.text;
  $('shader-state').textContent = unsaved
    ? `${sh.name}: not saved — renders here use what is typed; save it for the command line to render the same`
    : `${sh.name}: saved in the outputs folder`;
}

function openEditor(name, text, saved) {
  state.shader = { name, text, compiled: null, saved, timer: null, seq: 0 };
  $('shader-workbench').hidden = false;
  $('shader-name').value = name;
  $('shader-text').value = text;
  $('shader-error').textContent = '';
  numberLines(0);
  shaderState();
  compileShader();
}

// Compiles the text as its file; on success its effect (its parameters) joins the chain, or
// replaces its old description there, and the picture shows it. On failure the error is
// marked at its line and the picture keeps the last good text.
async function compileShader() {
  const sh = state.shader;
  if (!sh) return;
  const seq = ++sh.seq, name = sh.name, text = sh.text;
  const response = await api('/api/shader', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, source: text }) });
  const answer = await response.json().catch(() => ({}));
  if (seq !== sh.seq || state.shader !== sh) return; // typed again meanwhile: the newer compile answers
  if (!response.ok) {
    const error = answer.error || `the studio answered ${response.status}`;
    const at = /^[^:]+:(\d+)(?::(\d+))?: (.*)$/.exec(error);
    $('shader-error').textContent = at ? `line ${at[1]}${at[2] ? `, column ${at[2]}` : ''}: ${at[3]}` : error;
    $('shader-error').dataset.line = at ? at[1] : '';
    $('shader-error').dataset.column = at && at[2] ? at[2] : '';
    numberLines(at ? Number(at[1]) : 0);
    if (window.studio.onShader) window.studio.onShader({ ok: false, error });
    return;
  }
  $('shader-error').textContent = '';
  $('shader-error').dataset.line = '';
  numberLines(0);
  sh.compiled = text;
  state.byName[name] = answer;
  const declared = new Set(answer.parameters.map((p) => p.name));
  let present = false;
  for (const item of state.chain) {
    if (item.name !== name) continue;
    present = true;
    // A parameter no longer declared goes; a new one shows its control at its default.
    for (const k of Object.keys(item.values)) if (!declared.has(k)) delete item.values[k];
  }
  if (!present) state.chain.push({ name, values: {}, enable: null, ease: null });
  changed(true);
  shaderState();
  if (window.studio.onShader) window.studio.onShader({ ok: true, parameters: answer.parameters.map((p) => p.name) });
}

async function saveShader(overwrite = false) {
  const sh = state.shader;
  if (!sh) return;
  const text = sh.text;
  const response = await api('/api/shader/save', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: sh.name, source: text, overwrite }) });
  const answer = await response.json().catch(() => ({}));
  if (response.status === 409 && !overwrite) {
    if (confirm(`${sh.name} is in the outputs folder already. Save over it?`)) return saveShader(true);
    return;
  }
  if (!response.ok) { $('shader-state').textContent = answer.error || `not saved (${response.status})`; return; }
  sh.saved = text;
  await loadOutputs();
  listShaders();
  shaderState();
}

// A shader file written elsewhere (the user's own editor): the chain reads it again, and an
// editor showing it with nothing unsaved shows the new text.
async function shadersChanged(names) {
  for (const name of names) {
    const sh = state.shader;
    if (sh && sh.name === name && sh.text === sh.saved) {
      const response = await api('/api/shader?name=' + encodeURIComponent(name));
      const answer = await response.json().catch(() => ({}));
      if (response.ok && !answer.draft) {
        sh.text = sh.saved = answer.source;
        $('shader-text').value = answer.source;
        numberLines(0);
      }
    }
    if (!state.chain.some((item) => item.name === name)) continue;
    delete state.byName[name];
    try {
      await describeShaders(name);
      const declared = new Set(state.byName[name].parameters.map((p) => p.name));
      for (const item of state.chain) {
        if (item.name === name) for (const k of Object.keys(item.values)) if (!declared.has(k)) delete item.values[k];
      }
      $('shader-error').textContent = '';
      changed(true);
    } catch (error) {
      $('chain-error').textContent = String(error.message || error);
    }
  }
  // For tests: the last reload, the editor's text then, and the still it asked for.
  state.reloaded = { names, count: ((state.reloaded && state.reloaded.count) || 0) + 1,
    text: state.shader ? state.shader.text : null, still: state.stillSeq };
  await loadOutputs();
  listShaders();
}

$('shader-new').addEventListener('change', () => {
  const kind = $('shader-new').value;
  $('shader-new').value = '';
  if (!TEMPLATES[kind]) return;
  const [base, text] = TEMPLATES[kind];
  openEditor(freeShaderName(base), text, null);
});
$('shader-open').addEventListener('change', async () => {
  const name = $('shader-open').value;
  $('shader-open').value = '';
  if (!name) return;
  const response = await api('/api/shader?name=' + encodeURIComponent(name));
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) { $('chain-error').textContent = answer.error || `${name}: ${response.status}`; return; }
  openEditor(name, answer.source, answer.draft ? null : answer.source);
});
$('shader-text').addEventListener('input', () => {
  const sh = state.shader;
  if (!sh) return;
  sh.text = $('shader-text').value;
  numberLines(Number($('shader-error').dataset.line || 0));
  shaderState();
  clearTimeout(sh.timer);
  sh.timer = setTimeout(compileShader, 300);
});
$('shader-text').addEventListener('scroll', () => { $('shader-lines').scrollTop = $('shader-text').scrollTop; });
$('shader-text').addEventListener('keydown', (e) => {
  // Tab indents (four spaces) rather than leaving the editor.
  if (e.key !== 'Tab') return;
  e.preventDefault();
  const t = e.target, at = t.selectionStart;
  t.setRangeText('    ', at, t.selectionEnd, 'end');
  t.dispatchEvent(new Event('input'));
});
$('shader-name').addEventListener('change', () => {
  const sh = state.shader;
  const name = $('shader-name').value.trim();
  if (!sh || !SHADER_FILE.test(name) || name.includes('/')) { if (sh) $('shader-name').value = sh.name; return; }
  // The chain's entry follows the new name.
  for (const item of state.chain) if (item.name === sh.name) item.name = name;
  sh.name = name;
  sh.saved = null;
  compileShader();
});
$('shader-save').addEventListener('click', () => saveShader(false));
window.studio.shader = { openEditor, compileShader, saveShader, templates: TEMPLATES };

// MARK: the redaction review: the faces of the whole clip as a detections file, its tracks
// hidden or kept, boxes drawn by hand and followed, exported as the file a render uses.

// review: {name, ticks: [[detection]] by tick, tracks: Map(id → {id, first, last, count, best}),
//          hidden: Set(id), manual: Map(id → Map(tick → bounds)), exported: name|null}
state.review = null;

async function runJob(path, body) {
  const response = await api(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error);
  for (;;) {
    const s = await (await api(`/api/render/${answer.id}`)).json();
    if (s.state === 'done') return s;
    if (s.state === 'failed') throw new Error(s.error || 'failed');
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function findFaces() {
  const name = $('review-name').value.trim();
  $('find-faces').disabled = true;
  $('review-state').textContent = `finding faces into ${name}…`;
  try {
    await runJob('/api/detect', { output: name });
    await loadReview(name);
  } catch (error) {
    $('review-state').textContent = String(error.message || error);
  } finally {
    $('find-faces').disabled = false;
  }
}

async function loadReview(name) {
  const text = await (await api(`/outputs/${encodeURIComponent(name)}`)).text();
  const ticks = [];
  const tracks = new Map();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const t = JSON.parse(line);
    const faces = (t.detections || []).filter((d) => (d.kind || 'face') === 'face');
    ticks[t.tick] = faces;
    for (const d of faces) {
      const tr = tracks.get(d.trackID) || { id: d.trackID, first: t.tick, last: t.tick, count: 0, best: null };
      tr.first = Math.min(tr.first, t.tick); tr.last = Math.max(tr.last, t.tick); tr.count += 1;
      const area = d.bounds.width * d.bounds.height;
      if (!d.interpolated && (!tr.best || area > tr.best.area)) tr.best = { tick: t.tick, bounds: d.bounds, area };
      tracks.set(d.trackID, tr);
    }
  }
  for (const tr of tracks.values()) if (!tr.best) tr.best = { tick: tr.first, bounds: ticks[tr.first].find((d) => d.trackID === tr.id).bounds };
  state.review = { name, ticks, tracks, hidden: new Set(), manual: new Map(), exported: null, nextManual: 100000 };
  $('review').hidden = false;
  $('review-state').textContent = `${name}: ${tracks.size} tracks`;
  renderReview();
}

// A still per tick, shared by the thumbnails of the tracks seen best on it.
const plainStills = new Map();
function plainStill(tick) {
  if (!plainStills.has(tick)) plainStills.set(tick, fetchStill(tick, ''));
  return plainStills.get(tick);
}

function reviewTrackRows() {
  const r = state.review;
  const rows = [...r.tracks.values()].sort((a, b) => a.first - b.first || a.id - b.id).map((tr) => ({ ...tr, manual: false }));
  for (const [id, boxes] of r.manual) {
    const ticks = [...boxes.keys()];
    const first = Math.min(...ticks), last = Math.max(...ticks);
    rows.push({ id, first, last, count: ticks.length, best: { tick: first, bounds: boxes.get(first) }, manual: true });
  }
  return rows;
}

function renderReview() {
  const r = state.review;
  const rows = reviewTrackRows();
  // Lanes: one row per track across the clip, its ticks marked.
  const lanes = $('lanes');
  const rowHeight = 6;
  lanes.height = Math.max(1, rows.length * rowHeight);
  const g = lanes.getContext('2d');
  g.clearRect(0, 0, lanes.width, lanes.height);
  rows.forEach((tr, i) => {
    g.fillStyle = tr.manual ? '#6cb4ff' : r.hidden.has(tr.id) ? '#555' : '#7c7';
    const ticks = tr.manual ? [...r.manual.get(tr.id).keys()] : [];
    if (tr.manual) {
      for (const t of ticks) g.fillRect((t / state.ticks) * lanes.width, i * rowHeight, Math.max(1, lanes.width / state.ticks), rowHeight - 1);
    } else {
      for (let t = tr.first; t <= tr.last; t++) {
        if ((r.ticks[t] || []).some((d) => d.trackID === tr.id)) {
          g.fillRect((t / state.ticks) * lanes.width, i * rowHeight, Math.max(1, lanes.width / state.ticks), rowHeight - 1);
        }
      }
    }
  });
  g.fillStyle = '#fff';
  g.fillRect((state.tick / state.ticks) * lanes.width, 0, 1, lanes.height);
  lanes.onclick = (e) => {
    const box = lanes.getBoundingClientRect();
    seekTo(Math.min(state.ticks - 1, Math.floor(((e.clientX - box.left) / box.width) * state.ticks)));
  };
  const items = rows.map((tr) => {
    const li = document.createElement('li');
    li.dataset.track = tr.id;
    if (!tr.manual && r.hidden.has(tr.id)) li.className = 'hidden-track';
    const thumb = document.createElement('canvas');
    thumb.width = 40; thumb.height = 40;
    plainStill(tr.best.tick).then((bitmap) => {
      const b = tr.best.bounds;
      thumb.getContext('2d').drawImage(bitmap, b.x, b.y, b.width, b.height, 0, 0, 40, 40);
    }).catch(() => {});
    const label = document.createElement('span');
    label.textContent = `${tr.manual ? 'drawn' : 'face'} #${tr.id}: frames ${tr.first + 1}–${tr.last + 1}`;
    label.onclick = () => seekTo(tr.first);
    li.append(thumb, label);
    if (tr.manual) {
      for (const [text, keep] of [['from here', (t) => t >= state.tick], ['to here', (t) => t <= state.tick], ['delete', () => false]]) {
        const b = document.createElement('button');
        b.type = 'button'; b.textContent = text; b.dataset.action = text;
        b.onclick = () => {
          const boxes = r.manual.get(tr.id);
          for (const t of [...boxes.keys()]) if (!keep(t)) boxes.delete(t);
          if (!boxes.size) r.manual.delete(tr.id);
          reviewChanged();
        };
        li.append(b);
      }
    } else {
      const hide = document.createElement('input');
      hide.type = 'checkbox'; hide.checked = !r.hidden.has(tr.id); hide.title = 'Redact this track (untick for a false face)';
      hide.dataset.hide = tr.id;
      hide.onchange = () => { if (hide.checked) r.hidden.delete(tr.id); else r.hidden.add(tr.id); reviewChanged(); };
      li.append(hide);
    }
    return li;
  });
  $('review-tracks').replaceChildren(...items);
}

function reviewChanged() {
  state.review.exported = null;
  $('use-review').checked = false;
  $('use-review').disabled = true;
  renderReview();
  if (!state.playing && state.stillBitmap) { draw(state.stillBitmap, null); drawReviewBoxes(state.tick); }
}

function seekTo(tick) {
  if (state.playing) setPlaying(false);
  state.tick = tick;
  showTick();
  send({ seek: tick });
  requestStill();
  if (state.review) renderReview();
}

// The boxes of the review at `tick` over the still: kept (green), hidden (grey), drawn (blue).
function drawReviewBoxes(tick) {
  const r = state.review;
  if (!r) return;
  const g = context2d;
  g.lineWidth = 2;
  for (const d of r.ticks[tick] || []) {
    g.strokeStyle = r.hidden.has(d.trackID) ? '#888' : '#7c7';
    g.setLineDash(r.hidden.has(d.trackID) ? [4, 4] : []);
    g.strokeRect(d.bounds.x, d.bounds.y, d.bounds.width, d.bounds.height);
  }
  g.setLineDash([]);
  g.strokeStyle = '#6cb4ff';
  for (const boxes of r.manual.values()) {
    const b = boxes.get(tick);
    if (b) g.strokeRect(b.x, b.y, b.width, b.height);
  }
}

// Drawing: a drag on the paused picture, in the frame's pixels; the server follows it.
let drawing = null;
function framePoint(e) {
  const box = screen.getBoundingClientRect();
  return { x: ((e.clientX - box.left) / box.width) * screen.width, y: ((e.clientY - box.top) / box.height) * screen.height };
}
$('draw-box').addEventListener('click', () => {
  if (state.playing) setPlaying(false);
  screen.classList.add('drawing');
  drawing = { from: null };
});
// Moving and resizing: on the paused picture, drag a box of this tick to move it, or
// its lower-right corner to resize it. Only this tick's box changes.
let dragging = null;
function boxAt(p) {
  const r = state.review;
  if (!r || state.playing) return null;
  const candidates = [];
  for (const boxes of r.manual.values()) { const b = boxes.get(state.tick); if (b) candidates.push(b); }
  for (const d of r.ticks[state.tick] || []) if (!r.hidden.has(d.trackID)) candidates.push(d.bounds);
  return candidates.find((b) => p.x >= b.x && p.x <= b.x + b.width && p.y >= b.y && p.y <= b.y + b.height) || null;
}
screen.addEventListener('mousedown', (e) => {
  const p = framePoint(e);
  if (drawing) { drawing.from = p; return; }
  const b = boxAt(p);
  if (!b) return;
  const corner = p.x > b.x + b.width * 0.75 && p.y > b.y + b.height * 0.75;
  dragging = { box: b, from: p, start: { ...b }, corner };
});
screen.addEventListener('mousemove', (e) => {
  if (!dragging) return;
  const p = framePoint(e), d = dragging;
  if (d.corner) {
    d.box.width = Math.max(4, Math.round(d.start.width + p.x - d.from.x));
    d.box.height = Math.max(4, Math.round(d.start.height + p.y - d.from.y));
  } else {
    d.box.x = Math.round(d.start.x + p.x - d.from.x);
    d.box.y = Math.round(d.start.y + p.y - d.from.y);
  }
  if (state.stillBitmap) { draw(state.stillBitmap, null); drawReviewBoxes(state.tick); }
});
screen.addEventListener('mouseup', (e) => {
  if (dragging) {
    dragging = null;
    reviewChanged();
    return;
  }
  if (!drawing || !drawing.from) return;
  const to = framePoint(e), from = drawing.from;
  drawing = null;
  screen.classList.remove('drawing');
  const box = { x: Math.round(Math.min(from.x, to.x)), y: Math.round(Math.min(from.y, to.y)),
                width: Math.round(Math.abs(to.x - from.x)), height: Math.round(Math.abs(to.y - from.y)) };
  addDrawnBox(state.tick, box);
});

async function addDrawnBox(tick, box) {
  const r = state.review;
  $('review-state').textContent = 'following the box…';
  const response = await api('/api/follow', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ tick, box }) });
  const answer = await response.json();
  if (!response.ok) { $('review-state').textContent = answer.error; return null; }
  const id = r.nextManual++;
  const boxes = new Map();
  for (const b of answer.boxes) boxes.set(b.tick, { x: b.x, y: b.y, width: b.width, height: b.height });
  r.manual.set(id, boxes);
  const ticks = [...boxes.keys()];
  $('review-state').textContent = `drawn #${id}: followed over frames ${Math.min(...ticks) + 1}–${Math.max(...ticks) + 1}`;
  reviewChanged();
  return id;
}

// The reviewed file: every tick of the clip, its kept tracks' boxes and the drawn ones.
function reviewedText() {
  const r = state.review;
  const lines = [];
  for (let tick = 0; tick < state.ticks; tick++) {
    const detections = (r.ticks[tick] || []).filter((d) => !r.hidden.has(d.trackID));
    for (const [id, boxes] of r.manual) {
      const b = boxes.get(tick);
      if (b) detections.push({ kind: 'face', trackID: id, manual: true, bounds: b });
    }
    lines.push(JSON.stringify({ tick, detections }));
  }
  return lines.join('\n') + '\n';
}

async function exportReview() {
  const name = $('export-name').value.trim();
  const response = await api(`/api/detections/${encodeURIComponent(name)}`, { method: 'PUT', body: reviewedText() });
  const answer = await response.json();
  if (!response.ok) { $('review-state').textContent = answer.error; return null; }
  state.review.exported = name;
  $('use-review').disabled = false;
  $('use-review').checked = true;
  commands();
  $('review-state').textContent = `exported ${name}: ${answer.tracks} tracks, ${answer.manualBoxes} drawn boxes`;
  return answer;
}

$('find-faces').addEventListener('click', findFaces);
$('use-review').addEventListener('change', () => { commands(); if (!state.playing) requestStill(); });
$('export').addEventListener('click', exportReview);
window.studio.review = { findFaces, loadReview, addDrawnBox, exportReview, reviewedText, seekTo };

// MARK: start

function connect() {
  // The token as a subprotocol: a page cannot give a WebSocket headers, and a URL is logged.
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`, ['vidfx', `vidfx-token.${token}`]);
  ws.binaryType = 'arraybuffer';
  ws.onopen = () => {
    state.ws = ws;
    sendChain(chainText());
    send({ play: state.playing });
    setStatus('live');
  };
  ws.onmessage = (e) => {
    if (typeof e.data === 'string') {
      const m = JSON.parse(e.data);
      if (m.type === 'chain' && !m.ok) $('chain-error').textContent = m.error;
      if (Array.isArray(m.changed)) shadersChanged(m.changed);
    } else {
      onFrame(e.data);
    }
  };
  ws.onclose = () => { state.ws = null; setStatus('disconnected: reload the page'); };
}

async function start() {
  const answers = await Promise.all([api('/api/effects'), api('/api/info')]);
  const refused = answers.find((a) => !a.ok);
  if (refused) {
    // Opened without the token (or with an old one): say so rather than show an empty page.
    const message = (await refused.json().catch(() => ({}))).error || `the studio answered ${refused.status}`;
    setStatus(message);
    throw new Error(message);
  }
  const [effects, info] = await Promise.all(answers.map((a) => a.json()));
  await loadOutputs();
  listShaders();
  state.effects = effects;
  state.info = info;
  for (const e of effects) state.byName[e.name] = e;
  const [n, d] = String(info.frameRate).split('/').map(Number);
  state.rate = [n, d || 1];
  state.ticks = info.ticks || 1;
  $('scrub').max = state.ticks - 1;
  $('input-name').textContent = `${info.input} · ${info.width}×${info.height} · ${info.fps.toFixed(3).replace(/\.?0+$/, '')} fps`;
  const select = $('add-effect');
  for (const e of effects) select.append(new Option(`${e.name} — ${e.summary}`, e.name));
  const fragment = new URLSearchParams(location.hash.slice(1)).get('chain') || '';
  try { state.chain = await parseChainWithShaders(fragment); } catch (error) { $('chain-error').textContent = error.message; }
  renderPanel();
  $('chain-text').value = chainText();
  commands();
  showTick();
  connect();
  loadTimeline();
  document.body.dataset.ready = 'true';
}
window.studio.ready = start();
