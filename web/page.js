// The page around the springbox window: a scene picker, the scene's code in an editor that
// reloads the running scene as you type, the window's downloads (G, P), dropped files, and a
// link that carries the scene's code.
'use strict';

const $ = (id) => document.getElementById(id);
// What went wrong with the link stays said, before whatever the page says next, until the
// visitor acts (types, picks or drops a scene).
let kept = '';
const status = (text, failed) => {
  $('status').textContent = kept ? kept + (text ? ' | ' + text : '') : text;
  $('status').className = failed || kept ? 'failed' : '';
  $('status').title = $('status').textContent;
};
function keepSaying(text) { kept = text; status(''); }
function acted() { if (kept) { kept = ''; status(''); } }
const editor = CodeMirror($('editor'), { mode: 'lua', lineNumbers: true, indentUnit: 2, tabSize: 2, theme: 'default' });

let M = null;            // the springbox module once it runs
let threads = 1;         // the threads a world steps on when its scene does not say
let path = null;         // the scene file the window runs and the editor shows
let written = '';        // the file's text as the page last wrote or read it
let stamp = 0;           // the file's last modification time, seconds: always later than the one before
let typing = null;       // the pause after typing that writes the file
let marked = null;       // the editor line marked with the last error
let settingText = false; // the editor's text is being set from the file, not typed
const downloaded = new Set();

// ---------------------------------------------------------------- the link

function toBase64Url(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
function fromBase64Url(text) {
  const s = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}
async function pipe(bytes, stream) {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(stream)).arrayBuffer());
}
const pack = async (text) => toBase64Url(await pipe(new TextEncoder().encode(text), new CompressionStream('deflate-raw')));
/// The most code a link may carry, unpacked: a longer one is refused as it unpacks, so a small
/// link cannot fill the page's memory.
const linkCodeMax = 1 << 20;
async function unpack(code) {
  const reader = new Blob([fromBase64Url(code)]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  const parts = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > linkCodeMax) {
      reader.cancel();
      throw new Error('it unpacks to more than ' + (linkCodeMax >> 20) + ' MiB of code');
    }
    parts.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) { bytes.set(part, at); at += part.length; }
  const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  if (!text.trim()) throw new Error('it carries no code');
  return text;
}

function sceneName(p) { return p.replace(/^.*\//, '').replace(/\.lua$/, ''); }
function safeName(name) { return (name.replace(/\.lua$/, '').replace(/[^A-Za-z0-9_-]/g, '_') || 'scene').slice(0, 64); }

async function shareUrl() {
  const url = new URL(location.href);
  url.hash = 'scene=' + encodeURIComponent(sceneName(path)) + '&code=' + (await pack(editor.getValue()));
  return url.href;
}

async function shareLink() {
  const href = await shareUrl();
  history.replaceState(null, '', href);
  try {
    await navigator.clipboard.writeText(href);
    status('the link to this scene and its code is in the clipboard (and the address bar)');
  } catch (e) {
    status('the link to this scene and its code is in the address bar');
  }
}

// ---------------------------------------------------------------- the file and the editor

function writeFile(text) {
  M.FS.writeFile(path, text);
  if (!M.ccall('window_web_running', 'number', [], [])) { // its first scene did not open: try again
    if (startWindow(path)) status('running ' + sceneName(path));
    return;
  }
  stamp = Math.max(stamp + 1, Math.floor(Date.now() / 1000)); // a change the window's poll always sees
  M.FS.utime(path, stamp * 1000, stamp * 1000);
  written = text;
}

/// The scene a file is: itself, or the shipped scene it only returns (default.lua is
/// `return require "bridge"`), so the editor shows code a visitor can change.
function sceneFile(p) {
  let text = '';
  try { text = M.FS.readFile(p, { encoding: 'utf8' }); } catch (e) { return p; }
  const m = text.replace(/^\s*(--[^\n]*\n\s*)*/, '').match(/^return\s+require\s*\(?\s*["']([A-Za-z0-9_]+)["']\s*\)?\s*$/);
  const target = m && '/scripts/' + m[1] + '.lua';
  return target && M.FS.analyzePath(target).exists ? target : p;
}

function showFile(p) {
  path = p;
  const text = M.FS.readFile(p, { encoding: 'utf8' });
  written = text;
  settingText = true;
  editor.setValue(text);
  editor.clearHistory();
  settingText = false;
  clearProblem();
  const pick = $('scene');
  if (![...pick.options].some((o) => o.value === p)) pick.add(new Option(sceneName(p) + ' (yours)', p));
  pick.value = p;
}

// Opens the scene file at p in the window: {ok, message}; the running scene stays when it fails.
function openScene(p, from) {
  p = sceneFile(p);
  const why = M.ccall('window_web_open', 'string', ['string'], [p]);
  if (why) {
    status(why.replace(/^springbox: /, ''), true);
    return { ok: false, message: why };
  }
  showFile(p);
  const url = new URL(location.href);
  url.hash = 'scene=' + encodeURIComponent(sceneName(p));
  history.replaceState(null, '', url);
  status('running ' + sceneName(p) + (from ? ' ' + from : ''));
  return { ok: true, message: '' };
}

editor.on('change', () => {
  if (settingText || !M) return;
  acted();
  clearTimeout(typing);
  typing = setTimeout(() => { typing = null; tryThenWrite(editor.getValue()); }, 400);
});

// ---------------------------------------------------------------- the trial

/// How long a scene may take to load and step once in its trial before the page refuses it.
const trialSeconds = 3;
let trialWorker = null, trialReady = null, trialCount = 0;

function trialStart() {
  trialWorker = new Worker('trial.js');
  trialReady = new Promise((resolve, reject) => {
    trialWorker.onmessage = (e) => { if (e.data.ready) resolve(); };
    trialWorker.onerror = (e) => reject(new Error(e.message || 'the trial did not start'));
  });
  trialReady.catch(() => {});
}

/// Tries `text` off the page's main thread (trial.js): {ok: true} once it has loaded and stepped
/// once, or failed to load (the window says why when it runs it); {ok: false, why} when that took
/// more than trialSeconds: the worker is ended, and the next trial starts another. Where no worker
/// can be had, {ok: true}: the page runs the scene as it always did.
async function tried(text) {
  if (typeof Worker === 'undefined') return { ok: true };
  if (!trialWorker) trialStart();
  try { await trialReady; } catch (e) { trialWorker = null; return { ok: true }; }
  const id = ++trialCount, worker = trialWorker;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      worker.terminate();
      if (trialWorker === worker) trialWorker = null;
      resolve({ ok: false, why: `it did not load and step once within ${trialSeconds} s in a trial off the page (a loop as it loads?)` });
    }, trialSeconds * 1000);
    worker.onmessage = (e) => { if (e.data.id === id) { clearTimeout(timer); resolve({ ok: true }); } };
    worker.postMessage({ id, text });
  });
}

// Typed text runs in the window once its trial has passed; text typed during a trial waits, and
// only the newest is tried next.
let trying = false, waiting = null;
async function tryThenWrite(text) {
  waiting = text;
  if (trying) return;
  trying = true;
  while (waiting !== null) {
    const next = waiting;
    waiting = null;
    const result = await tried(next);
    if (waiting !== null) continue; // newer text came: try that instead
    if (result.ok) writeFile(next);
    else status('not run: ' + result.why + '; the last good scene runs on', true);
  }
  trying = false;
}

// The window writes the file too (W puts the sliders' values into it): the editor follows when
// nothing typed is waiting to be written.
function followFile() {
  if (!M || !path || typing) return;
  let text;
  try { text = M.FS.readFile(path, { encoding: 'utf8' }); } catch (e) { return; }
  if (text === written) return;
  written = text;
  const cursor = editor.getCursor(), scroll = editor.getScrollInfo();
  settingText = true;
  editor.setValue(text);
  editor.setCursor(cursor);
  editor.scrollTo(scroll.left, scroll.top);
  settingText = false;
}

function clearProblem() {
  if (marked !== null) editor.removeLineClass(marked, 'background', 'error-line');
  marked = null;
  $('problem').hidden = true;
}

function showProblem(text) {
  clearProblem();
  $('problem').textContent = text;
  $('problem').hidden = false;
  const name = path.replace(/^.*\//, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = text.match(new RegExp(name + ':(\\d+):'));
  if (m) {
    marked = editor.getLineHandle(Number(m[1]) - 1);
    if (marked) editor.addLineClass(marked, 'background', 'error-line');
  }
}

// ---------------------------------------------------------------- what the window says

function says(what, text) {
  if (what === 'failed') {
    status('reload failed: the last good scene keeps running', true);
    showProblem(text);
  } else if (what === 'error') {
    status('a scene function failed: the scene runs on without it', true);
    showProblem(text);
  } else if (what === 'draw') { // draw mode's tool, which the clean view shows nowhere else
    status(text);
  } else {
    clearProblem();
    status((what === 'kept' ? 'reloaded: ' : 'restarted: ') + text);
  }
}

// G and P write springbox-NNNN.gif and .png where the window runs: each becomes a download.
function offerDownloads() {
  if (!M) return;
  const dir = M.FS.cwd();
  for (const name of M.FS.readdir(dir)) {
    if (!/^springbox-\d+\.(gif|png)$/.test(name) || downloaded.has(name)) continue;
    downloaded.add(name);
    const bytes = M.FS.readFile((dir === '/' ? '' : dir) + '/' + name);
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([bytes], { type: name.endsWith('.gif') ? 'image/gif' : 'image/png' }));
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    status('saved ' + name + ' (a download)');
  }
}

// ---------------------------------------------------------------- dropped files

addEventListener('dragover', (e) => { e.preventDefault(); $('drop').hidden = false; });
addEventListener('dragleave', (e) => { if (!e.relatedTarget) $('drop').hidden = true; });
addEventListener('drop', async (e) => {
  e.preventDefault();
  $('drop').hidden = true;
  acted();
  const file = [...e.dataTransfer.files].find((f) => f.name.endsWith('.lua'));
  if (!file || !M) { status('only a .lua scene can be opened here', true); return; }
  const p = '/scripts/' + safeName(file.name) + '.lua';
  M.FS.writeFile(p, await file.text());
  openScene(p, '(a dropped file)');
});

// ---------------------------------------------------------------- the API

const stats_file = '/tmp/frames.jsonl';
let lastFrame = null;

// The latest frame object, as a --stats line has it (frame, time, hash, ...).
function stats() {
  let text = '';
  try { text = M.FS.readFile(stats_file, { encoding: 'utf8' }); } catch (e) { return lastFrame; }
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; --i) {
    if (!lines[i].startsWith('{"frame"')) continue;
    try { lastFrame = JSON.parse(lines[i]); break; } catch (e) { /* a line being written */ }
  }
  return lastFrame;
}

// Runs `text` as a scene for `frames` frames without drawing: the last frame object, or
// {error} when it does not load.
function headless(text, frames) {
  M.FS.mkdirTree('/tmp/headless');
  M.FS.writeFile('/tmp/headless/scene.lua', text);
  try { M.FS.unlink('/tmp/headless/frames.jsonl'); } catch (e) { /* none yet */ }
  let said = '';
  const printErr = M.printErr;
  M.printErr = (t) => { said += t + '\n'; };
  try {
    M.callMain(['--headless', '--threads', String(threads), '--frames', String(frames), '--stats', '/tmp/headless/frames.jsonl', '/tmp/headless/scene.lua']);
  } catch (e) {
    if (e !== 'unwind' && !(e && e.name === 'ExitStatus')) said += String(e);
  } finally {
    M.printErr = printErr;
  }
  let text2 = '';
  try { text2 = M.FS.readFile('/tmp/headless/frames.jsonl', { encoding: 'utf8' }); } catch (e) { /* no frames */ }
  const frameLines = text2.split('\n').filter((l) => l.startsWith('{"frame"'));
  return frameLines.length ? JSON.parse(frameLines[frameLines.length - 1]) : { error: said.trim() || 'no frames' };
}

// ---------------------------------------------------------------- the window's room and touch

// The window's size for the room its stage has: the stage's pixels, or up to twice them where the
// stage is narrower than 720 (a phone), so the window keeps room for its sliders beside the scene.
function windowSize() {
  const box = $('stage').getBoundingClientRect();
  const k = Math.min(2, Math.max(1, 720 / Math.max(1, box.width)));
  return [Math.max(320, Math.round(box.width * k)), Math.max(240, Math.round(box.height * k))];
}

function followStage() {
  let pending = null;
  new ResizeObserver(() => {
    clearTimeout(pending);
    pending = setTimeout(() => { if (M) M.ccall('window_web_resize', null, ['number', 'number'], windowSize()); }, 100);
  }).observe($('stage'));
}

// One of the window's keys from a button (a touch screen has no keyboard): the window's own
// binding, as if pressed.
function pressKey(name, mod) {
  if (!M || !M.ccall('window_web_key', 'number', ['string', 'number'], [name, mod || 0])) return;
  $('canvas').focus({ preventScroll: true });
}

// The methods' keys, 1 .. 6, in the order of the solver's table (sb_method).
const methods = ['force', 'impulse', 'sequential', 'soft', 'verlet', 'xpbd'];

function wireControls() {
  for (const b of document.querySelectorAll('#controls button[data-key]'))
    b.addEventListener('click', () => pressKey(b.dataset.key, Number(b.dataset.mod || 0)));
  const pick = $('method');
  pick.add(new Option('method…', ''));
  methods.forEach((name, i) => pick.add(new Option(`${i + 1} ${name}`, String(i + 1))));
  pick.onchange = () => { if (pick.value) pressKey(pick.value); pick.value = ''; };
}

// Two fingers on the window pan and zoom it (one drags a particle, as the mouse does): their
// events stop here, before SDL's own listeners on the canvas see them.
function wireTouch() {
  const canvas = $('canvas'), stage = $('stage');
  let last = null; // the last two-finger centre and spread, in window pixels
  const measure = (e) => {
    const r = canvas.getBoundingClientRect(), kx = canvas.width / r.width, ky = canvas.height / r.height;
    const [a, b] = e.touches;
    return { x: ((a.clientX + b.clientX) / 2 - r.left) * kx, y: ((a.clientY + b.clientY) / 2 - r.top) * ky,
             d: Math.hypot((a.clientX - b.clientX) * kx, (a.clientY - b.clientY) * ky) };
  };
  const take = (e) => {
    if (e.touches.length < 2 || !M) return false;
    e.stopPropagation();
    e.preventDefault();
    return true;
  };
  stage.addEventListener('touchstart', (e) => { if (take(e)) last = measure(e); }, { capture: true, passive: false });
  stage.addEventListener('touchmove', (e) => {
    if (!take(e)) return;
    const now = measure(e);
    if (last) {
      M.ccall('window_web_view', null, ['number', 'number', 'number', 'number', 'number'],
        [now.x - last.x, now.y - last.y, last.d > 0 && now.d > 0 ? now.d / last.d : 1, now.x, now.y]);
    }
    last = now;
  }, { capture: true, passive: false });
  const lift = (e) => { if (e.touches.length < 2) last = null; };
  stage.addEventListener('touchend', lift, { capture: true });
  stage.addEventListener('touchcancel', lift, { capture: true });
}

let started;
const ready = new Promise((resolve) => { started = resolve; });

// For tests and for pages that embed springbox.
window.springbox = {
  ready,
  open(text, name) {
    const p = '/scripts/' + safeName(name || 'scene') + '.lua';
    M.FS.writeFile(p, text);
    return openScene(p);
  },
  edit(text) {
    clearTimeout(typing);
    typing = null;
    settingText = true;
    editor.setValue(text);
    settingText = false;
    M.FS.writeFile(path, text);
    written = text;
    return JSON.parse(M.ccall('window_web_reload', 'string', [], []));
  },
  source: () => M.FS.readFile(path, { encoding: 'utf8' }),
  view: () => JSON.parse(M.ccall('window_web_view_state', 'string', [], [])),
  key: pressKey,
  threads: () => threads,
  stats,
  headless,
  share_url: shareUrl,
};

// ---------------------------------------------------------------- start

// Threads share the module's memory, which a browser allows a cross-origin-isolated page only.
// A host that sends the two headers (COOP same-origin, COEP require-corp) gives one; on any
// other host the service worker isolate.js adds them, and the page loads once more under it.
// Where neither can be had (no service workers, an insecure origin), the page runs on one thread.
async function isolated() {
  if (self.crossOriginIsolated) return true;
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return false;
  const tried = sessionStorage.getItem('springbox-isolating');
  sessionStorage.removeItem('springbox-isolating');
  if (tried || navigator.serviceWorker.controller) return false; // under it already, and still not isolated
  try {
    if (!(await navigator.serviceWorker.register('isolate.js'))) return false;
    const late = new Promise((resolve) => setTimeout(() => resolve(null), 5000));
    if (!(await Promise.race([navigator.serviceWorker.ready, late]))) return false; // a worker that never starts
  } catch (e) {
    return false;
  }
  sessionStorage.setItem('springbox-isolating', '1');
  location.reload();
  return new Promise(() => {}); // the page reloads
}

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = src;
    s.onload = resolve;
    s.onerror = () => reject(new Error('could not load ' + src));
    document.body.appendChild(s);
  });
}

async function start() {
  // up to four threads a world, and workers for three worlds: the compare view's two and a
  // headless run beside them (a world that finds none free steps on one thread)
  threads = (await isolated()) ? Math.max(1, Math.min(navigator.hardwareConcurrency || 1, 4)) : 1;
  await loadScript(threads > 1 ? 'springbox.js' : 'springbox-1.js');
  const params = new URLSearchParams(location.hash.slice(1));
  const canvas = $('canvas');
  const [width, height] = windowSize();
  M = await createSpringbox({
    canvas,
    print: (text) => console.log(text),
    printErr: (text) => {
      console.warn(text);
      if (/^springbox: /.test(text)) {
        status(text.slice(11).split('\n')[0], true);
        showProblem(text.slice(11));
      }
    },
    springboxSays: says,
    workers: 3 * (threads - 1),
  });
  const scenes = M.FS.readdir('/scripts').filter((n) => n.endsWith('.lua')).sort();
  for (const n of scenes) $('scene').add(new Option(n.replace(/\.lua$/, ''), '/scripts/' + n));
  let first = '/scripts/' + safeName(params.get('scene') || 'default') + '.lua';
  let from = '', refused = '';
  if (params.has('code')) {
    try {
      if (!params.get('code')) throw new Error('it carries no code');
      const text = await unpack(params.get('code'));
      M.FS.writeFile(first, text);
      from = '(from a shared link: it runs in the sandbox, with the limits of any scene)';
      const result = await tried(text);
      if (!result.ok) refused = 'the link\'s scene was not run: ' + result.why + '; its code is in the editor, and editing it tries again';
    } catch (e) {
      const why = e instanceof SyntaxError || /atob|decode|character/i.test(e.message) ? 'it is not a springbox link'
        : /unpacks to more|carries no code/.test(e.message) ? e.message
        : e instanceof TypeError ? 'its code is damaged (' + e.message + ')' : e.message;
      if (!M.FS.analyzePath(first).exists) first = '/scripts/default.lua';
      keepSaying('the link\'s code could not be read: ' + why + '; the shipped ' + sceneName(sceneFile(first)) + ' runs instead');
    }
  }
  if (!M.FS.analyzePath(first).exists) {
    if (!kept) keepSaying('the link names no shipped scene "' + params.get('scene') + '"');
    first = '/scripts/default.lua';
  }
  first = sceneFile(first);
  showFile(first);
  $('scene').onchange = () => { acted(); openScene($('scene').value); };
  $('share').onclick = shareLink;
  canvas.addEventListener('mousedown', () => canvas.focus());
  setInterval(() => { followFile(); offerDownloads(); }, 250);
  M.FS.mkdirTree('/tmp');
  windowArgs = ['--window', width + 'x' + height, '--threads', String(threads), '--stats', stats_file];
  const on = threads > 1 ? ` on ${threads} threads` : ' on one thread';
  if (refused) keepSaying(refused);
  else if (startWindow(first)) status('running ' + sceneName(first) + on + (from ? ' ' + from : ''));
  wireControls();
  wireTouch();
  followStage();
  if (matchMedia('(max-width: 760px)').matches) pressKey('V'); // a phone: the scene alone ("sliders" brings them)
  canvas.focus({ preventScroll: true });
  started();
}

let windowArgs = [];

// Starts the window on the scene at p; when the scene does not open, the editor's next change
// tries again.
function startWindow(p) {
  try {
    M.callMain(windowArgs.concat([p]));
  } catch (e) {
    if (e !== 'unwind' && !(e && e.name === 'ExitStatus')) throw e;
  }
  written = M.FS.readFile(p, { encoding: 'utf8' });
  if (M.ccall('window_web_running', 'number', [], [])) {
    clearProblem();
    return true;
  }
  return false;
}

start().catch((e) => status('springbox could not start: ' + e.message, true));
