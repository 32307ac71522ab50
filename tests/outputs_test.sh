#!/usr/bin/env bash
# No option ever destroys a file the designer wrote: an output that is the scene, a module, the
# recording being replayed or another output is refused (exit 2, naming both), as is a target
# that holds something springbox did not write, a symbolic link, and a FIFO with no reader (at
# once). An output replaces its target only when the run has earned it: a scene that fails to
# load leaves an earlier --stats file as it was, and a run killed midway leaves neither its
# output nor a temporary behind.
. "$(dirname "$0")/shell_preamble.sh"
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cd "$tmp"
cat >scene.lua <<'LUA'
local sb = require "springbox"
local m = require "mod"
local w = sb.world{}
w:wall(-2, 0, 2, 0)
w:particle{ x = 0, y = m.y, radius = 0.2 }
return { world = w }
LUA
echo 'return { y = 1 }' >mod.lua
echo 'my notes, not springbox stats' >notes.txt
printf 'springbox-input 1\n2 key a down\n' >hands.txt
cp scene.lua scene.keep; cp mod.lua mod.keep; cp notes.txt notes.keep; cp hands.txt hands.keep
untouched() {
  cmp -s scene.keep scene.lua && cmp -s mod.keep mod.lua && cmp -s notes.keep notes.txt && cmp -s hands.keep hands.txt ||
    fail "$1: a file the designer wrote changed"
  leftovers=$(find . -name '*.springbox-*')
  [ -z "$leftovers" ] || fail "$1: temporaries left behind: $leftovers"
}
refused() { # what the message must say, then the arguments
  local want="$1"; shift
  timeout 20 "$bin" "$@" >out 2>&1
  local rc=$?
  [ $rc -eq 2 ] || fail "springbox $* exited $rc, not 2: $(cat out)"
  grep -qF -- "$want" out || fail "springbox $*: '$want' not in: $(cat out)"
  untouched "springbox $*"
}
gifs=false; "$bin" --help | grep -q -- "--gif" && "$bin" --gif x.gif --frames 0 scene.lua >/dev/null 2>&1 && gifs=true
rm -f x.gif
window=false; "$bin" --help | grep -q -- "--screenshot" && window=true

# an output that is the scene, a module, the recording replayed, or another output
if $window; then
  $gifs && refused "cannot write the GIF 'scene.lua' (--gif): a .lua file is a scene or a module" --gif scene.lua --frames 4
  refused "--screenshot 'scene.lua' is the scene file 'scene.lua'" --screenshot scene.lua scene.lua
  refused "--screenshot '$tmp/./scene.lua' is the scene file 'scene.lua'" --screenshot "$tmp/./scene.lua" scene.lua
  refused "--stats 'out.x' and --screenshot 'out.x' are one file" --stats out.x --screenshot out.x scene.lua
fi
refused "--stats 'scene.lua' is the scene file 'scene.lua'" --headless --stats scene.lua scene.lua
refused "cannot write the stats file 'mod.lua' (--stats): a .lua file is a scene or a module" --headless --stats mod.lua scene.lua
refused "--stats 'hands.txt' is --replay 'hands.txt'" --headless --replay hands.txt --stats hands.txt scene.lua
$window && refused "--record-input 'hands.txt' is --replay 'hands.txt'" --replay hands.txt --record-input hands.txt scene.lua
ln hands.txt hands-again.txt # a second name of the recording is the recording
$window && refused "--record-input 'hands-again.txt' is --replay 'hands.txt'" --replay hands.txt --record-input hands-again.txt scene.lua
rm hands-again.txt
# a target springbox did not write
refused "cannot write the stats file 'notes.txt' (--stats): it exists and is not springbox stats (JSON lines) (it starts 'my notes" \
  --headless --stats notes.txt scene.lua
$window && refused "cannot write the screenshot 'notes.txt' (--screenshot): it exists and is not a PNG" --screenshot notes.txt scene.lua
ln -s notes.txt link.jsonl
refused "cannot write the stats file 'link.jsonl' (--stats): a symbolic link" --headless --stats link.jsonl scene.lua
mkdir folder.jsonl
refused "cannot write the stats file 'folder.jsonl' (--stats): a folder" --headless --stats folder.jsonl scene.lua

# a FIFO with no reader is refused at once; one with a reader is written
mkfifo pipe
start=$(date +%s)
refused "cannot write the stats file 'pipe' (--stats): a FIFO with no reader" --headless --stats pipe scene.lua
if $window; then
  refused "cannot write the screenshot 'pipe' (--screenshot): a FIFO with no reader" --screenshot pipe scene.lua
  $gifs && refused "cannot write the GIF 'pipe' (--gif): a FIFO with no reader" --gif pipe scene.lua
fi
[ $(( $(date +%s) - start )) -lt 15 ] || fail "refusing FIFOs took $(( $(date +%s) - start )) s"
cat pipe >piped.jsonl &
reader=$!
timeout 20 "$bin" --headless --frames 30 --stats pipe scene.lua >/dev/null 2>&1 || fail "--stats into a FIFO with a reader exited $?"
wait $reader
[ "$(grep -c '"frame"' piped.jsonl)" -eq 30 ] || fail "the FIFO's reader got $(grep -c '"frame"' piped.jsonl) lines, not 30"

# --record writes no frame through a link planted in its folder
mkdir -p frames outside
echo 'outside the folder' >outside/notes.txt
ln -s ../outside/notes.txt frames/frame_00001.png
if $window; then
  refused "cannot write frames/frame_00001.png (--record frames): a symbolic link" --record frames --frames 3 scene.lua
  [ "$(cat outside/notes.txt)" = "outside the folder" ] || fail "--record wrote through a link: $(head -c 60 outside/notes.txt)"
fi

# what springbox wrote it replaces, keeping the file's mode; a scene that fails to load leaves
# the earlier file as it was
"$bin" --headless --frames 10 --stats run.jsonl scene.lua >/dev/null || fail "a first --stats run exited $?"
chmod 640 run.jsonl
"$bin" --headless --frames 20 --stats run.jsonl scene.lua >/dev/null || fail "--stats over its own earlier file exited $?"
[ "$(wc -l <run.jsonl)" -eq 20 ] || fail "the second run's stats have $(wc -l <run.jsonl) lines, not 20"
[ "$(stat -c %a run.jsonl)" = 640 ] || fail "the stats file's mode became $(stat -c %a run.jsonl)"
echo 'error("broken on purpose")' >broken.lua
cp run.jsonl run.keep
"$bin" --headless --frames 20 --stats run.jsonl broken.lua >out 2>&1
[ $? -eq 1 ] || fail "a scene that fails to load did not exit 1: $(cat out)"
cmp -s run.keep run.jsonl || fail "a scene that failed to load changed the earlier --stats file"
untouched "a scene that fails to load"
if $window; then
  "$bin" --screenshot shot.png --frames 2 scene.lua >/dev/null 2>&1 || fail "a first screenshot exited $?"
  "$bin" --screenshot shot.png --frames 5 scene.lua >/dev/null 2>&1 || fail "a screenshot over its own earlier file exited $?"
  head -c 8 shot.png | od -An -c | grep -q 'P   N   G' || fail "the screenshot is not a PNG"
fi

# a run stopped midway leaves neither its output nor a temporary
"$bin" --headless --realtime --frames 600 --stats live.jsonl scene.lua >/dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do [ -s live.jsonl ] && break; sleep 0.1; done
[ -s live.jsonl ] || fail "a --realtime run's --stats file did not appear once the scene had loaded"
kill -TERM $pid; wait $pid 2>/dev/null
if $gifs; then
  "$bin" --gif long.gif --frames 100000 scene.lua >/dev/null 2>&1 &
  pid=$!
  sleep 2
  kill -TERM $pid; wait $pid 2>/dev/null
  [ -e long.gif ] && fail "a GIF stopped midway was left at its name"
fi
untouched "runs stopped midway"
echo "outputs: ok"
