#!/usr/bin/env bash
# The headless runner writes one JSON line per frame with finite diagnostics, and rejects
# bad arguments with a message that names the bad value.
. "$(dirname "$0")/shell_preamble.sh"
bin="$1"

"$bin" --headless --scene rope --method xpbd --frames 90 --stats "$tmp/stats.jsonl" >"$tmp/out" || fail "runner exited $?"
[ "$(wc -l <"$tmp/stats.jsonl")" -eq 90 ] || fail "expected 90 stats lines, got $(wc -l <"$tmp/stats.jsonl")"
tail -n 1 "$tmp/stats.jsonl" | grep -q '"frame":90,' || fail "last line is not frame 90"
grep -qiE 'nan|inf' "$tmp/stats.jsonl" && fail "non-finite value in stats"
# a rope falling from horizontal gains kinetic energy
ke=$(tail -n 1 "$tmp/stats.jsonl" | sed 's/.*"kinetic":\([^,]*\),.*/\1/')
awk -v ke="$ke" 'BEGIN { exit !(ke > 1.0) }' || fail "kinetic energy after 1.5 s of falling is $ke"
grep -q "done: 90 frames" "$tmp/out" || fail "no summary line"

"$bin" --method bogus >"$tmp/out" 2>&1 && fail "unknown method accepted"
grep -q "unknown method 'bogus'" "$tmp/out" || fail "error does not name the bad method: $(cat "$tmp/out")"
"$bin" --frames -3 >"$tmp/out" 2>&1 && fail "negative frame count accepted"
grep -q "bad value for --frames: '-3'" "$tmp/out" || fail "error does not name the bad value"
# Every bad argument is exit 2 with the argument and value named, never accepted
bad() { # expected message, then the arguments
  local want="$1"; shift
  "$bin" "$@" >"$tmp/out" 2>&1
  local rc=$?
  [ $rc -eq 2 ] || fail "springbox $* exited $rc, not 2"
  grep -qF -- "$want" "$tmp/out" || fail "springbox $*: '$want' not in: $(cat "$tmp/out")"
}
scripts="$(dirname "$0")/../scripts"
bad "bad value for --view: 'nan,nan,1'" --view nan,nan,1 "$scripts/rope.lua"
bad "bad value for --view: '0,0,inf'" --view 0,0,inf "$scripts/rope.lua"
bad "bad value for --view: '0,0,1junk'" --view 0,0,1junk "$scripts/rope.lua"
bad "cannot write the stats file '$tmp/none/s.jsonl' (--stats): No such file or directory" --headless --stats "$tmp/none/s.jsonl" "$scripts/rope.lua"
bad "bad value for --size: '5000' (scene 'bridge' builds sizes 1 to 255)" --headless --scene bridge --size 5000
bad "one scene file at a time, got 'a.lua' and 'b.lua'" a.lua b.lua
# --record makes its folder (the README's own "--record frames/" in a fresh checkout);
# a path that cannot be written is a bad argument (2), not a scene that failed to load (1)
abs_bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
abs_rope="$(cd "$scripts" && pwd)/rope.lua"
(cd "$tmp" && "$abs_bin" --record frames/run1/ --frames 2 "$abs_rope" >/dev/null 2>&1) || fail "--record into a new folder exited $?"
[ -f "$tmp/frames/run1/frame_00002.png" ] || fail "--record wrote no frames into the folder it should make"
bad "cannot write frames into '/proc/none' (--record)" --record /proc/none --frames 2 "$scripts/rope.lua"
bad "cannot write the screenshot '$tmp/none/shot.png' (--screenshot)" --screenshot "$tmp/none/shot.png" --frames 2 "$scripts/rope.lua"
# A write that fails is an error at once, naming the option and the value, exit 2: a full disk
# (/dev/full), an empty name; an unknown sample beside a scene file; a recording that cannot be
# made fails before the run, and one that cannot be read (a FIFO with no writer) never blocks.
bad "cannot write --stats /dev/full: No space left on device" --headless --frames 5 --stats /dev/full "$scripts/rope.lua"
bad "cannot write --stats /dev/full" --headless --scene rope --frames 5 --stats /dev/full
bad "bad value for --stats: ''" --headless --stats "" "$scripts/rope.lua"
if "$bin" --help | grep -q -- "--screenshot"; then
  bad "cannot write the screenshot '/dev/full' (--screenshot): No space left on device" --screenshot /dev/full --frames 2 "$scripts/rope.lua"
  bad "bad value for --screenshot: ''" --screenshot "" --frames 2 "$scripts/rope.lua"
fi
bad "bad value for --scene: 'no_such_sample' is not a built-in sample" --headless --scene no_such_sample "$scripts/rope.lua"
bad "--scene rope and the scene file" --headless --scene rope "$scripts/rope.lua"
bad "cannot write the input recording '/dev/null/hands.txt' (--record-input)" --record-input /dev/null/hands.txt "$scripts/rope.lua"
mkfifo "$tmp/hands.fifo"
start=$(date +%s)
bad "cannot replay --replay $tmp/hands.fifo: not a regular file" --headless --replay "$tmp/hands.fifo" "$scripts/rope.lua"
[ $(( $(date +%s) - start )) -lt 10 ] || fail "--replay of a FIFO took $(( $(date +%s) - start )) s"
printf 'springbox-input 1\n3 key \033]0;owned\007 down\n' >"$tmp/escape.txt"
bad "escape.txt:2: not an input recording (a control byte)" --headless --replay "$tmp/escape.txt" "$scripts/rope.lua"
LC_ALL=C grep -q "$(printf '\033')" "$tmp/out" && fail "a refused recording's escape reached the terminal"
# No display: the window refuses to run unseen (SDL would fall back to a driver without windows).
(unset SDL_VIDEODRIVER WAYLAND_DISPLAY; DISPLAY=:249 timeout 20 "$bin" "$scripts/rope.lua") >"$tmp/out" 2>&1
rc=$?
if ! grep -q "built without SDL2" "$tmp/out"; then # a build without the window has nothing to open
  [ $rc -eq 1 ] || fail "with no display springbox exited $rc, not 1: $(cat "$tmp/out")"
  grep -q "cannot open a display" "$tmp/out" || fail "with no display: $(cat "$tmp/out")"
fi
# The second world of a scene halts (pushed out of range from update):
# exit 3, halted:true in stats, and the message names world 2
cat >"$tmp/two.lua" <<'LUA'
local sb = require "springbox"
local calm, pushed = sb.world{}, sb.world{}
calm:particle{ x = 0, y = 0 }
local p = pushed:particle{ x = 0, y = 1 }
return { world = calm, worlds = { calm, pushed }, update = function() p:apply_force(1e12, 0) end }
LUA
"$bin" --headless "$tmp/two.lua" --frames 120 --stats "$tmp/two.jsonl" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 3 ] || fail "a halted second world exited $rc, not 3: $(cat "$tmp/out")"
grep -q "world 2: runaway at step" "$tmp/out" || fail "the halt does not name world 2: $(cat "$tmp/out")"
grep -q "world 1:" "$tmp/out" && fail "world 1 did not halt: $(cat "$tmp/out")"
head -n 30 "$tmp/two.jsonl" | grep -q '"halted":true' && fail "halted before it ran away"
tail -n 1 "$tmp/two.jsonl" | grep -q '"halted":true' || fail "stats say not halted: $(tail -n 1 "$tmp/two.jsonl")"
grep -q "stays off" "$tmp/out" && fail "update() failed after the halt: $(cat "$tmp/out")"
# A comparison hides no world. World 2 (verlet at one sub-step) cannot run its
# 25 Hz spring as asked: --stats has each world's figures and clamp message under "worlds", the
# table has a row per world, and the console names world 2's clamp.
cat >"$tmp/cmp.lua" <<'LUA'
local sb = require "springbox"
local function one(method)
  local w = sb.world{ method = method, substeps = 1, gravity = {0, 0} }
  local a = w:particle{ x = 0, y = 0, fixed = true }
  local b = w:particle{ x = 1.1, y = 0 }
  w:spring(a, b, { hertz = 25, damping_ratio = 0.01, rest_length = 1 })
  return w
end
local soft, verlet = one("soft"), one("verlet")
return { world = soft, worlds = { soft, verlet } }
LUA
"$bin" --headless "$tmp/cmp.lua" --frames 60 --stats "$tmp/cmp.jsonl" >"$tmp/out" 2>&1 || fail "comparison exited $?: $(cat "$tmp/out")"
last=$(tail -n 1 "$tmp/cmp.jsonl")
echo "$last" | grep -q '"worlds":\[{"world":1,"method":"soft"' || fail "no world 1 under worlds: $last"
echo "$last" | grep -q '{"world":2,"method":"verlet","substeps":1' || fail "no world 2 under worlds: $last"
echo "$last" | grep -qE '"world":2,[^}]*"clamped_springs":1,[^}]*"clamp_message":"1 spring cannot run as tuned' ||
  fail "world 2's clamp is not in --stats: $last"
grep -q "world 2, verlet, springs clamped" "$tmp/out" || fail "the table has no row for world 2: $(cat "$tmp/out")"
grep -q "warning: world 2: 1 spring cannot run as tuned with verlet" "$tmp/out" || fail "console does not name world 2's clamp"
"$bin" --headless "$tmp/two.lua" --frames 120 --stats "$tmp/two.jsonl" >/dev/null 2>&1
tail -n 1 "$tmp/two.jsonl" | grep -qE '"world":2,[^}]*"halted":true,"message":"runaway at step' ||
  fail "world 2's halt is not under worlds: $(tail -n 1 "$tmp/two.jsonl")"
# A failing callback is named as what failed, not as update(), and update runs on
cat >"$tmp/cb.lua" <<'LUA'
local sb = require "springbox"
local w = sb.world{ gravity = {0, -9.81} }
local top = w:particle{ x = 0, y = 0, fixed = true }
local bob = w:particle{ x = 0, y = -1, mass = 5 }
w:spring(top, bob, { break_force = 1 })
local frames = 0
return { world = w,
  update = function() frames = frames + 1; sb.plot("frames", frames) end,
  on_spring_break = function() error("boom in the break handler") end }
LUA
"$bin" --headless "$tmp/cb.lua" --frames 30 --stats "$tmp/cb.jsonl" >"$tmp/out" 2>&1 || fail "callback scene exited $?: $(cat "$tmp/out")"
grep -q "on_spring_break() failed, it stays off until the scene is saved again (the rest keep running): on_spring_break(): .*boom in the break handler" "$tmp/out" ||
  fail "the failed callback is not named: $(cat "$tmp/out")"
grep -q "update() failed" "$tmp/out" && fail "an update() failure was reported for a callback's: $(cat "$tmp/out")"
grep -q '"event":"callback_error","function":"on_spring_break"' "$tmp/cb.jsonl" || fail "no callback_error event in --stats"
grep -q '"event":"update_error"' "$tmp/cb.jsonl" && fail "an update_error event for a callback's error"
tail -n 1 "$tmp/cb.jsonl" | grep -q '"plots":{"frames":30}' || fail "update stopped: $(tail -n 1 "$tmp/cb.jsonl")"
echo "headless runner: ok"
