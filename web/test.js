// The browser page driven as a designer would, in Debian's chromium (playwright-core): the
// scene runs in the canvas; typing a tuning keeps the state, a syntax error is marked on its line
// while the last good scene runs on, a structure change restarts; the share link opens the same
// code; the picker and a dropped file open other scenes; G and P become downloads; a link that
// cannot be read is said; on a phone the window comes first, its keys are buttons and two
// fingers pan and zoom.
// The page's API (window.springbox) is checked against the native build: a scene run headless in
// the page ends on the native build's state hash. A hostile scene meets the limits and the page
// runs on.
//   node web/test.js SITE_DIR [NATIVE_SPRINGBOX]
'use strict';
const { chromium } = require('playwright-core');
const http = require('http'), fs = require('fs'), path = require('path');

const site = path.resolve(process.argv[2] || 'build-web/site');
const native = process.argv[3];
const { execFileSync } = require('child_process');
const os = require('os');
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };
let failures = 0;
function check(ok, what) {
  console.log((ok ? 'ok   ' : 'FAIL ') + what);
  if (!ok) failures += 1;
}

const server = http.createServer((req, res) => {
  let p = path.join(site, decodeURIComponent(new URL(req.url, 'http://x').pathname));
  if (p.endsWith('/')) p += 'index.html';
  fs.readFile(p, (err, data) => {
    if (err) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'Content-Type': types[path.extname(p)] || 'application/octet-stream' });
    res.end(data);
  });
});

async function waitStatus(page, pattern, what, ms = 8000) {
  const ok = await page.waitForFunction((src) => new RegExp(src).test(document.getElementById('status').textContent),
    pattern.source, { timeout: ms }).then(() => true, () => false);
  check(ok, what + (ok ? '' : ` (status: "${await page.textContent('#status')}")`));
  return ok;
}

// The native build's last frame object of `text` run headless for `frames` frames (with `args`).
function nativeLast(text, frames, args) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'springbox-web-'));
  fs.writeFileSync(path.join(dir, 'scene.lua'), text);
  execFileSync(native, ['--headless', ...args, '--frames', String(frames), '--stats', path.join(dir, 'stats.jsonl'), path.join(dir, 'scene.lua')], { stdio: 'ignore' });
  const lines = fs.readFileSync(path.join(dir, 'stats.jsonl'), 'utf8').trim().split('\n').filter((l) => l.startsWith('{"frame"'));
  fs.rmSync(dir, { recursive: true });
  return JSON.parse(lines[lines.length - 1]);
}

// springbox.ready on a page that may load twice: the first time in a browser context, the page
// registers its service worker and loads again under it (page.js: isolated).
async function ready(page) {
  for (let tries = 0; ; ++tries) {
    try {
      await page.waitForFunction(() => window.springbox, null, { timeout: 30000 });
      return await page.evaluate(() => springbox.ready);
    } catch (e) {
      if (tries > 2 || !/destroyed|navigat/.test(e.message)) throw e;
    }
  }
}

// Replaces the first match of `from` in the editor with `to`, as typing would.
async function edit(page, from, to) {
  await page.evaluate(([f, t]) => {
    const cm = document.querySelector('.CodeMirror').CodeMirror;
    const text = cm.getValue(), at = text.indexOf(f);
    if (at < 0) throw new Error('not in the editor: ' + f);
    cm.replaceRange(t, cm.posFromIndex(at), cm.posFromIndex(at + f.length));
  }, [from, to]);
}

// Waits for `n` of the page's animation frames (its window draws one each): a wait counted in
// frames drawn, which a busy machine slows as it slows the window, not in seconds.
const drawnFrames = (p, n) => p.evaluate((k) => new Promise((done) => {
  const tick = () => (--k <= 0 ? done() : requestAnimationFrame(tick));
  requestAnimationFrame(tick);
}), n);

// The canvas drawn: many distinct colours, not a blank or a single fill.
async function canvasDrawn(page) {
  const png = await page.locator('#canvas').screenshot();
  const distinct = new Set();
  for (let i = 0; i < png.length; i += 97) distinct.add(png[i]);
  return distinct.size > 64;
}

async function main() {
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--use-gl=swiftshader', '--enable-unsafe-swiftshader'],
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 800 }, acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));

  await page.goto(base + '#scene=cloth');
  await waitStatus(page, /^running cloth/, 'the cloth scene runs in the page', 30000);
  check(await canvasDrawn(page), 'the window is drawn in the canvas');
  // the test's server sends no isolation headers: the page's service worker adds them
  await page.waitForFunction(() => springbox.stats() && springbox.stats().frame > 2, null, { timeout: 10000 }).catch(() => {});
  const on = await page.evaluate(() => ({ isolated: self.crossOriginIsolated, threads: springbox.threads(),
    cores: navigator.hardwareConcurrency, stepped: springbox.stats() && springbox.stats().threads }));
  check(on.isolated && on.threads === Math.min(on.cores, 4) && on.stepped === on.threads,
    `the page isolates itself and steps on every core, up to four (${JSON.stringify(on)})`);
  check((await page.evaluate(() => document.querySelector('.CodeMirror').CodeMirror.getValue())).includes('sb.world'),
    "the editor shows the scene's code");

  await edit(page, 'hertz = {0, 0, 120}', 'hertz = {30, 0, 120}');
  await waitStatus(page, /^reloaded: /, 'a tuning typed in the editor reloads and keeps the state');

  await edit(page, 'local grid = {}', 'local grid = = {}');
  await waitStatus(page, /^reload failed/, 'a syntax error is a failed reload');
  const problem = await page.textContent('#problem');
  check(/cloth\.lua:9:/.test(problem), `the error names its line (${problem.split('\n')[0]})`);
  const markedLine = await page.evaluate(() => {
    const cm = document.querySelector('.CodeMirror').CodeMirror;
    for (let i = 0; i < cm.lineCount(); ++i) if ((cm.lineInfo(i).bgClass || '').includes('error-line')) return i + 1;
    return 0;
  });
  check(markedLine === 9, `the editor marks line 9 (marked: ${markedLine})`);
  check(await canvasDrawn(page), 'the last good scene runs on');

  await edit(page, 'local grid = = {}', 'local grid = {}');
  await waitStatus(page, /^reloaded: /, 'the fixed code reloads');
  check(await page.isHidden('#problem'), 'the error is gone');

  await edit(page, 'size = {24, 4, 64}', 'size = {12, 4, 64}');
  await waitStatus(page, /^restarted: /, 'a structure change restarts and says why');

  await page.click('#share');
  await page.waitForFunction(() => location.hash.includes('code='));
  const link = await page.evaluate(() => location.href);
  const code = await page.evaluate(() => document.querySelector('.CodeMirror').CodeMirror.getValue());
  const other = await context.newPage();
  other.on('pageerror', (e) => errors.push(e.message));
  await other.goto(link);
  await waitStatus(other, /^running cloth/, 'the share link opens the scene', 30000);
  const shared = await other.evaluate(() => document.querySelector('.CodeMirror').CodeMirror.getValue());
  check(shared === code, 'the share link carries the edited code');
  check(await canvasDrawn(other), 'the shared scene runs');
  await other.close();

  await page.selectOption('#scene', '/scripts/bridge.lua');
  await waitStatus(page, /^running bridge/, 'the picker opens another scene');
  check((await page.evaluate(() => document.querySelector('.CodeMirror').CodeMirror.getValue())).includes('return'),
    "the editor shows the picked scene's code");

  const dropped = 'local sb = require "springbox"\nlocal w = sb.world{}\nw:particle{ x = 0, y = 2 }\nreturn { world = w, title = "dropped" }\n';
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'my scene.lua', { type: 'text/plain' }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, dropped);
  await waitStatus(page, /^running my_scene/, 'a dropped .lua file opens');
  await page.waitForFunction(() => document.title === 'dropped', null, { timeout: 5000 }).catch(() => {});
  check((await page.title()) === 'dropped', `the window runs the dropped scene (title "${await page.title()}")`);

  await page.click('#canvas');
  await page.waitForTimeout(1500); // a GIF needs frames to hold
  const download = page.waitForEvent('download', { timeout: 15000 }).catch(() => null);
  await page.keyboard.press('g');
  const d = await download;
  check(d && /^springbox-\d+\.gif$/.test(d.suggestedFilename()), `G saves a GIF as a download (${d ? d.suggestedFilename() : 'none'})`);
  const pngDownload = page.waitForEvent('download', { timeout: 15000 }).catch(() => null);
  await page.keyboard.press('p');
  const png = await pngDownload;
  const pngBytes = png ? fs.readFileSync(await png.path()) : Buffer.alloc(0);
  check(png && /^springbox-\d+\.png$/.test(png.suggestedFilename()) && pngBytes.length > 4096 &&
    pngBytes.subarray(1, 4).toString() === 'PNG', `P saves a PNG as a download (${png ? png.suggestedFilename() : 'none'}, ${pngBytes.length} bytes)`);
  const beforeQuit = await page.evaluate(() => ({ frame: springbox.stats().frame, view: springbox.view() }));
  await page.keyboard.press('q');
  await page.keyboard.press('Escape');
  await page.waitForFunction((f) => springbox.stats().frame > f + 30, beforeQuit.frame, { timeout: 10000 }).catch(() => {});
  const afterQuit = await page.evaluate(() => ({ frame: springbox.stats().frame, view: springbox.view() }));
  check(afterQuit.frame > beforeQuit.frame + 30 && afterQuit.view.width === beforeQuit.view.width && afterQuit.view.height === beforeQuit.view.height,
    `Q and Esc leave the page's window running at its size (frames ${beforeQuit.frame} -> ${afterQuit.frame}, ${afterQuit.view.width} x ${afterQuit.view.height})`);

  // ---------------------------------------------------------------- the API
  const api = await context.newPage();
  api.on('pageerror', (e) => errors.push(e.message));
  await api.goto(base + '#scene=bridge');
  await ready(api);
  await waitStatus(api, /^running bridge/, 'springbox.ready resolves with the scene running', 30000);
  const source = await api.evaluate(() => springbox.source());
  check(source.includes('sb.tune'), 'springbox.source() is the running text');
  const kept = await api.evaluate((t) => springbox.edit(t), source.replace(/deck_hz = \{\s*[0-9.]+/, 'deck_hz = {7'));
  check(kept.result === 'kept', `springbox.edit() of a tuning: ${JSON.stringify(kept)}`);
  const failed = await api.evaluate((t) => springbox.edit(t), source + '\nlocal = 1\n');
  check(failed.result === 'failed' && /bridge\.lua:\d+:/.test(failed.message), `springbox.edit() of a syntax error: ${failed.result}, ${failed.message.split('\n')[0]}`);
  const added = await api.evaluate((t) => springbox.edit(t), source.replace('return {', 'w:particle{ x = 0, y = 9 }\nreturn {'));
  check(added.result === 'kept' && /1 particle added/.test(added.message), `springbox.edit() adding a particle after the rest: ${added.result}, ${added.message}`);
  const restarted = await api.evaluate((t) => springbox.edit(t), source.replace(/(local w = sb\.world[^\n]*\n)/, '$1w:particle{ x = 0, y = 9 }\n'));
  check(restarted.result === 'restarted', `springbox.edit() of a structure: ${restarted.result}, ${restarted.message}`);
  await api.waitForTimeout(500);
  const s1 = await api.evaluate(() => springbox.stats());
  await api.waitForTimeout(500);
  const s2 = await api.evaluate(() => springbox.stats());
  check(s1 && s2 && s2.frame > s1.frame && /^[0-9a-f]{16}$/.test(s2.hash), `springbox.stats() follows the frames (${s1 && s1.frame} -> ${s2 && s2.frame})`);
  const url = await api.evaluate(() => springbox.share_url());
  check(/#scene=bridge&code=/.test(url), 'springbox.share_url() carries the code');

  const scene = fs.readFileSync(path.join(__dirname, '..', 'scripts', 'wrecking_ball.lua'), 'utf8');
  const frames = 240;
  const last = await api.evaluate(([t, n]) => springbox.headless(t, n), [scene, frames]);
  check(last && last.frame === frames, `springbox.headless() runs ${frames} frames (${JSON.stringify(last).slice(0, 80)})`);
  if (native) {
    const want = nativeLast(scene, frames, []);
    check(last.hash === want.hash, `the page's headless run ends on the native build's bits (${last.hash} / ${want.hash})`);
  }

  // threads: the rigid cloth split between them, to the native build's bits on as many
  const threads = await api.evaluate(() => springbox.threads());
  const cloth = fs.readFileSync(path.join(__dirname, '..', 'bench', 'scenes', 'rigid_cloth_96.lua'), 'utf8');
  const split = await api.evaluate(([t, n]) => springbox.headless(t, n), [cloth, 60]);
  check(split && split.frame === 60 && split.threads === threads && threads > 1,
    `springbox.headless() steps the rigid cloth on the page's ${threads} threads (${split && split.threads})`);
  if (native) {
    const want = nativeLast(cloth, 60, ['--threads', String(threads)]);
    check(split.hash === want.hash, `on ${threads} threads the page ends on the native build's bits (${split.hash} / ${want.hash})`);
  }

  // a world that asks for more threads than the page has workers steps on one, to the same bits
  const greedy = await api.evaluate(([t, n]) => springbox.headless(t, n), [cloth.replace('collisions = false', 'collisions = false, threads = 64'), 60]);
  check(greedy && greedy.frame === 60 && greedy.threads === 1 && greedy.hash === split.hash,
    `a world that asks for 64 threads steps on one, to the same bits (${greedy && greedy.threads}, ${greedy && greedy.hash})`);

  // hostile scenes: a load that never ends, a heap that grows without end, an update that loops
  const hungry = await api.evaluate(() => springbox.open('local t = {}\nlocal i = 0\nwhile true do i = i + 1; t[i] = string.rep("x", 1 << 20) .. i end\n', 'hungry'));
  check(!hungry.ok && /memory/.test(hungry.message), `a scene that eats memory does not open: ${hungry.message.split('\n')[0]}`);
  const looping = await api.evaluate(() => springbox.open('local sb = require "springbox"\nlocal w = sb.world{}\nw:particle{ x = 0, y = 1 }\nreturn { world = w, update = function() while true do end end }\n', 'looping'));
  check(looping.ok, 'a scene whose update never returns opens');
  await waitStatus(api, /a scene function failed/, 'its update is stopped by the time limit and said', 15000);
  const f1 = await api.evaluate(() => springbox.stats().frame);
  await api.waitForTimeout(700);
  const f2 = await api.evaluate(() => springbox.stats().frame);
  check(f2 > f1, `the page runs on after it (frames ${f1} -> ${f2})`);
  await api.close();

  // a drag in a small tab, where the canvas is scaled down to fit: the grab lands on the particle
  const small = await browser.newPage({ viewport: { width: 1024, height: 640 } });
  small.on('pageerror', (e) => errors.push(e.message));
  await small.goto(base);
  await ready(small);
  await small.evaluate(() => springbox.open('local sb = require "springbox"\nlocal w = sb.world{ gravity = {0, 0} }\n' +
    'w:particle{ x = -1, y = 0, fixed = true }\nw:particle{ x = 1, y = 0.5, radius = 0.2 }\nreturn { world = w, title = "drag" }\n', 'drag'));
  await small.waitForTimeout(800);
  const at = await small.evaluate(() => {
    const st = springbox.stats(), c = document.getElementById('canvas'), box = c.getBoundingClientRect();
    const [cx, cy, scale] = st.camera, [vx, vy, vw, vh] = st.view;
    const px = vx + vw / 2 + (1 - cx) * scale, py = vy + vh / 2 - (0.5 - cy) * scale; // the particle, canvas pixels
    return { x: box.left + px * box.width / c.width, y: box.top + py * box.height / c.height, scaled: box.width / c.width,
             to: { x: box.left + (px + 0.5 * scale) * box.width / c.width, y: box.top + (py - 0.5 * scale) * box.height / c.height } };
  });
  await small.mouse.move(at.x, at.y);
  await small.mouse.down();
  await small.mouse.move(at.to.x, at.to.y, { steps: 5 });
  await small.waitForTimeout(500);
  const held = await small.evaluate(() => springbox.stats().drag);
  await small.mouse.up();
  check(at.scaled < 0.999 && held && held.index === 2 && Math.abs(held.target[0] - 1.5) < 0.05 && Math.abs(held.target[1] - 1.0) < 0.05,
    `a drag in a tab where the window is scaled by ${at.scaled.toFixed(2)} grabs the particle and follows the mouse (${JSON.stringify(held)})`);
  await small.close();

  // a link whose code does not load: said, and fixing it in the editor starts the window
  const broken = await context.newPage();
  broken.on('pageerror', (e) => errors.push(e.message));
  await broken.goto(base);
  await ready(broken);
  const brokenUrl = await broken.evaluate(async () => {
    springbox.open('local sb = require "springbox"\nlocal w = sb.world{}\nw:particle{ x = 0, y = 1 }\nreturn { world = w }\n', 'mine');
    springbox.edit('local sb = require "springbox"\nlocal w = sb.world{}\nlocal = 1\nw:particle{ x = 0, y = 1 }\nreturn { world = w }\n');
    return springbox.share_url();
  });
  const fresh = await context.newPage();
  fresh.on('pageerror', (e) => errors.push(e.message));
  await fresh.goto(brokenUrl);
  await ready(fresh);
  check(await fresh.isVisible('#problem'), 'a shared scene that does not load shows its error');
  await edit(fresh, 'local = 1\n', '');
  await waitStatus(fresh, /^(running|reloaded|restarted)/, 'fixing it in the editor starts the window', 10000).catch(() => {});
  await fresh.waitForTimeout(1000);
  check(await fresh.evaluate(() => springbox.stats() !== null), 'the fixed scene runs');
  await broken.close();
  await fresh.close();

  // the first page a visitor sees shows its scene's code, not a line that requires it
  const first = await context.newPage();
  first.on('pageerror', (e) => errors.push(e.message));
  await first.goto(base);
  await ready(first);
  const firstText = await first.evaluate(() => document.querySelector('.CodeMirror').CodeMirror.getValue());
  check(firstText.includes('sb.world') && !/^\s*(--[^\n]*\n\s*)*return\s+require/.test(firstText),
    `the default page's editor shows its scene's code (${firstText.split('\n')[0].slice(0, 60)})`);
  await first.close();

  // a link that cannot be read is said, and the saying stays until the visitor acts
  const bomb = require('zlib').deflateRawSync(Buffer.alloc(4 << 20, 0x20)).toString('base64')
    .replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  for (const [link, why] of [['#scene=cloth&code=%25%25not-a-link', /not a springbox link/], ['#scene=cloth&code=AAAA', /damaged/],
    ['#scene=cloth&code=', /carries no code/], ['#scene=cloth&code=' + bomb, /more than 1 MiB/], ['#scene=nosuch', /no shipped scene "nosuch"/]]) {
    const said = await context.newPage();
    said.on('pageerror', (e) => errors.push(e.message));
    await said.goto(base + link);
    await ready(said);
    await drawnFrames(said, 120); // the window has run a while, and said its own things
    const text = await said.textContent('#status');
    check(why.test(text) && await canvasDrawn(said), `a link ${link.slice(0, 40)}${link.length > 40 ? '...' : ''} is said and stays said: "${text.slice(0, 110)}"`);
    await edit(said, 'local', 'local '); // (the editor's change ends the saying at once)
    check(!why.test(await said.textContent('#status')), 'typing in the editor ends the saying');
    await said.close();
  }

  // a scene that loops as it loads, or builds a world whose first step takes a minute, never holds
  // the tab: it is tried off the page first, and refused when the trial takes over 3 s
  const linkOf = (name, text) => `#scene=${name}&code=` + require('zlib').deflateRawSync(Buffer.from(text)).toString('base64')
    .replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const answers = async (p, seconds) => { // the page's slowest answer over `seconds`, ms
    let worst = 0;
    for (const end = Date.now() + seconds * 1000; Date.now() < end;) {
      const t0 = Date.now();
      await p.evaluate(() => 1);
      worst = Math.max(worst, Date.now() - t0);
      await p.waitForTimeout(100);
    }
    return worst;
  };
  for (const [name, text] of [['looping', 'local sb = require "springbox"\nwhile true do end\n'],
    ['million', 'local sb = require "springbox"\nlocal w = sb.world{}\nfor i = 1, 1000000 do w:particle{ x = i % 1000, y = i // 1000 } end\nreturn { world = w }\n']]) {
    const hostile = await context.newPage();
    hostile.on('pageerror', (e) => errors.push(e.message));
    await hostile.goto(base + linkOf(name, text));
    await ready(hostile);
    const worst = await answers(hostile, 5);
    const text2 = await hostile.textContent('#status');
    const shown = await hostile.evaluate(() => document.querySelector('.CodeMirror').CodeMirror.getValue());
    check(worst < 1000 && /was not run: it did not load and step once within 3 s/.test(text2) && shown === text,
      `a link to a scene that ${name === 'looping' ? 'loops as it loads' : 'builds a million particles'} never holds the tab (slowest answer ${worst} ms): "${text2.slice(0, 100)}"`);
    await hostile.close();
  }
  const typist = await context.newPage();
  typist.on('pageerror', (e) => errors.push(e.message));
  await typist.goto(base + '#scene=cloth');
  await ready(typist);
  await edit(typist, 'local sb = require "springbox"', 'local sb = require "springbox"\nwhile true do end');
  const typedWorst = await answers(typist, 5);
  const typedFrames = [await typist.evaluate(() => springbox.stats().frame)];
  await typist.waitForFunction((f) => springbox.stats().frame > f + 10, typedFrames[0], { timeout: 10000 }).catch(() => {});
  typedFrames.push(await typist.evaluate(() => springbox.stats().frame));
  check(typedWorst < 1000 && /not run: it did not load/.test(await typist.textContent('#status')) && typedFrames[1] > typedFrames[0],
    `a loop typed into the editor never holds the tab (slowest answer ${typedWorst} ms), and the last good scene runs on (frames ${typedFrames.join(' -> ')})`);
  await typist.close();

  // draw mode from the page: its button, then a stroke; the drawn line appears in the editor
  const drawer = await context.newPage();
  drawer.on('pageerror', (e) => errors.push(e.message));
  await drawer.goto(base);
  await ready(drawer);
  await drawer.evaluate(() => springbox.open('local sb = require "springbox"\nlocal w = sb.world{}\n\nreturn { world = w, title = "drawme" }\n', 'drawme'));
  await drawer.click('#controls button[data-key="D"]');
  const stage = await drawer.locator('#canvas').boundingBox();
  await drawer.mouse.move(stage.x + 60, stage.y + stage.height * 0.6);
  await drawer.mouse.down();
  for (let k = 1; k <= 20; ++k) await drawer.mouse.move(stage.x + 60 + 12 * k, stage.y + stage.height * 0.6 + (k < 10 ? 4 * k : 80 - 4 * k));
  await drawer.mouse.up();
  const drawn = await drawer.waitForFunction(() => /\nw:polyline\{[^}]+\}\n-- end of drawn/.test(document.querySelector('.CodeMirror').CodeMirror.getValue()),
    null, { timeout: 10000 }).then(() => true, () => false);
  const drawnText = await drawer.evaluate(() => document.querySelector('.CodeMirror').CodeMirror.getValue());
  check(drawn, `the draw button and a stroke write a ground line into the editor's code (${(drawnText.match(/w:polyline[^\n]*/) || ['none'])[0]})`);
  // the tool button: the rope, a stroke of beads; the status line names the tool
  await drawer.click('#controls button[data-key="Tab"]');
  const toolSaid = await drawer.textContent('#status');
  check(/^draw mode, rope: /.test(toolSaid), `the status line names draw mode's tool ("${toolSaid}")`);
  await drawer.mouse.move(stage.x + 60, stage.y + stage.height * 0.3);
  await drawer.mouse.down();
  for (let k = 1; k <= 10; ++k) await drawer.mouse.move(stage.x + 60 + 20 * k, stage.y + stage.height * 0.3);
  await drawer.mouse.up();
  const roped = await drawer.waitForFunction(() => /\nw:chain\(\{[^}]+\}, \{ spacing = [0-9.]+ \}\)\n-- end of drawn/.test(document.querySelector('.CodeMirror').CodeMirror.getValue()),
    null, { timeout: 10000 }).then(() => true, () => false);
  const ropeText = await drawer.evaluate(() => document.querySelector('.CodeMirror').CodeMirror.getValue());
  check(roped, `the tool button and a stroke write a rope of beads into the code (${(ropeText.match(/w:chain[^\n]*/) || ['none'])[0]})`);
  await drawer.close();

  // a phone: the window first, the whole width; its keys as buttons; two fingers pan and zoom;
  // turned, the window follows
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const mobile = await phone.newPage();
  mobile.on('pageerror', (e) => errors.push(e.message));
  await mobile.goto(base + '#scene=cloth');
  await ready(mobile);
  await mobile.waitForFunction(() => springbox.stats() && springbox.stats().frame > 2, null, { timeout: 10000 }).catch(() => {});
  const canvasBox = await mobile.locator('#canvas').boundingBox(), editorBox = await mobile.locator('#editor').boundingBox();
  check(canvasBox.width >= 370 && canvasBox.height >= 300 && canvasBox.y + canvasBox.height <= editorBox.y,
    `on a 390 x 844 phone the window comes first and fills the width (${Math.round(canvasBox.width)} x ${Math.round(canvasBox.height)}, the code below it)`);
  const cdp = await phone.newCDPSession(mobile);
  const cx = canvasBox.x + canvasBox.width / 2, cy = canvasBox.y + canvasBox.height / 2;
  const zoomedFrom = await mobile.evaluate(() => springbox.view());
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: cx - 30, y: cy, id: 1 }, { x: cx + 30, y: cy, id: 2 }] });
  for (let k = 1; k <= 10; ++k)
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: cx - 30 - 6 * k, y: cy + 4 * k, id: 1 }, { x: cx + 30 + 6 * k, y: cy + 4 * k, id: 2 }] });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] }); // (the view moves as each touch comes)
  const zoomed = await mobile.evaluate(() => springbox.view());
  check(zoomed.scale / zoomedFrom.scale > 2.5 && zoomed.scale / zoomedFrom.scale < 3.5 && zoomed.cy > zoomedFrom.cy,
    `two fingers spread 60 -> 180 px zoom the view 3 times and pan it (${(zoomed.scale / zoomedFrom.scale).toFixed(2)}x; centre y ${zoomedFrom.cy.toFixed(2)} -> ${zoomed.cy.toFixed(2)})`);
  await mobile.tap('#controls button[data-key="Pause"]');
  await drawnFrames(mobile, 10);
  const pausedAt = await mobile.evaluate(() => springbox.stats().frame);
  await drawnFrames(mobile, 60); // a second of frames drawn, none stepped
  const stillAt = await mobile.evaluate(() => springbox.stats().frame);
  await mobile.tap('#controls button[data-key="Pause"]');
  await mobile.waitForFunction((f) => springbox.stats().frame > f + 10, stillAt, { timeout: 10000 }).catch(() => {});
  const runsAt = await mobile.evaluate(() => springbox.stats().frame);
  check(stillAt === pausedAt && runsAt > stillAt + 10, `the pause button pauses and resumes (frames ${pausedAt}, ${stillAt}, ${runsAt})`);
  // draw mode by touch: the draw button, then one finger's stroke, a ground line in the code
  await mobile.evaluate(() => springbox.open('local sb = require "springbox"\nlocal w = sb.world{}\n\nreturn { world = w }\n', 'fingers'));
  await mobile.tap('#controls button[data-key="D"]');
  const y0 = canvasBox.y + canvasBox.height * 0.8;
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: canvasBox.x + 40, y: y0, id: 5 }] });
  for (let k = 1; k <= 12; ++k)
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: canvasBox.x + 40 + 12 * k, y: y0 - (k < 6 ? 6 * k : 72 - 6 * k), id: 5 }] });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  const fingerDrawn = await mobile.waitForFunction(() => /\nw:polyline\{[^}]+\}\n-- end of drawn/.test(document.querySelector('.CodeMirror').CodeMirror.getValue()),
    null, { timeout: 10000 }).then(() => true, () => false);
  check(fingerDrawn, 'on a phone, the draw button and a finger\'s stroke write a ground line into the code');
  await mobile.tap('#controls button[data-key="D"]');
  const upright = await mobile.evaluate(() => springbox.view());
  await mobile.setViewportSize({ width: 844, height: 390 });
  await mobile.waitForFunction((h) => springbox.view().height !== h, upright.height, { timeout: 5000 }).catch(() => {});
  const turned = await mobile.evaluate(() => springbox.view());
  check(turned.height < upright.height && turned.width / turned.height > upright.width / upright.height,
    `turned, the window takes the new room (${upright.width} x ${upright.height} -> ${turned.width} x ${turned.height})`);
  await phone.close();

  // a browser that gives the page no service worker: one thread, the same page
  const plain = await browser.newContext({ viewport: { width: 1400, height: 800 }, serviceWorkers: 'block' });
  const single = await plain.newPage();
  single.on('pageerror', (e) => errors.push(e.message));
  await single.goto(base + '#scene=cloth');
  await waitStatus(single, /^running cloth on one thread/, 'without a service worker the page runs on one thread', 30000);
  await single.waitForFunction(() => springbox.stats() && springbox.stats().frame > 2, null, { timeout: 10000 }).catch(() => {});
  const one = await single.evaluate(() => ({ isolated: self.crossOriginIsolated, threads: springbox.threads(), stepped: springbox.stats() && springbox.stats().threads }));
  check(!one.isolated && one.threads === 1 && one.stepped === 1 && await canvasDrawn(single), `and draws (${JSON.stringify(one)})`);
  await plain.close();

  check(errors.length === 0, 'no errors on the page' + (errors.length ? ': ' + errors.join('; ') : ''));
  await browser.close();
  server.close();
  console.log(failures ? `${failures} failed` : 'the page works');
  process.exit(failures ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(1); });
