// A trial run of a scene's text off the page's main thread: the one-thread build loads the scene
// headless and steps it once, and says how it went. The page (page.js: tried) runs a scene in its
// window only once it has loaded here in time: a scene that loops as it loads, or builds a world
// whose first step takes seconds, costs this worker, which the page ends, and not the page.
'use strict';
importScripts('springbox-1.js');

let said = '';
const started = createSpringbox({ print() {}, printErr: (text) => { said += text + '\n'; } });
started.then(() => postMessage({ ready: true }));

onmessage = async (e) => {
  const M = await started;
  const { id, text } = e.data;
  M.FS.mkdirTree('/tmp/trial');
  M.FS.writeFile('/tmp/trial/scene.lua', text);
  said = '';
  let ran = false;
  try {
    M.callMain(['--headless', '--threads', '1', '--frames', '1', '/tmp/trial/scene.lua']);
    ran = true;
  } catch (err) {
    ran = err === 'unwind' || (err && err.name === 'ExitStatus');
    if (!ran) said += String(err);
  }
  postMessage({ id, said: said.trim() });
};
