#!/usr/bin/env bash
# Hot reload while a headless run is going: a file is rewritten on disk four times and the
# runner's JSON lines must show each outcome, within a quarter second of the save:
#   tuning change -> kept (the clock carries on, nothing jumps)
#   syntax error  -> failed (file:line reported), the last good scene keeps running
#   fixed file    -> kept again
#   new particle first -> restarted, with the reason (one added after the rest keeps the state)
. "$(dirname "$0")/shell_preamble.sh"
bin="$1"
trap 'kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- stats events:"; grep event "$tmp/stats.jsonl"; echo "--- output:"; cat "$tmp/out"; exit 1; }

scene() { # $1 = deck hertz, $2 = extra line, $3 = a line before the rest; logs the wall-clock time of the save
  cat >"$tmp/next.lua" <<LUA
local sb = require "springbox"
local w = sb.world{ method = "soft", collisions = false }
${3:-}
local prev = w:particle{ x = 0, y = 0, fixed = true }
for i = 1, 10 do
  local p = w:particle{ x = i * 0.3, y = 0 }
  w:spring(prev, p, { hertz = $1, damping_ratio = 0.5 })
  prev = p
end
$2
return { world = w, title = "reload test" }
LUA
  # saved whole at once, as an editor that renames does: the time is the host's, not the shell's
  # (a file emptied before its writer starts is the host tests' a_file_emptied_...)
  date +%s.%N >>"$tmp/saves"
  mv "$tmp/next.lua" "$tmp/scene.lua"
}

scene 4 ""
: >"$tmp/saves"
"$bin" --headless --realtime --frames 420 --stats "$tmp/stats.jsonl" "$tmp/scene.lua" >"$tmp/out" 2>&1 &
pid=$!
sleep 1.5
scene 12 ""                                   # tuning only
sleep 1.2
scene 12 "local broken = = 1"                 # syntax error on line 10
sleep 1.2
scene 20 ""                                   # fixed
sleep 1.2
scene 20 "" "w:particle{ x = 5, y = 5 }"      # structure changed before the rest
wait $pid || fail "runner exited $?"

events=$(grep -c '"event":"reload"' "$tmp/stats.jsonl")
[ "$events" -eq 4 ] || fail "expected 4 reload events, got $events"
results=$(grep '"event":"reload"' "$tmp/stats.jsonl" | sed 's/.*"result":"\([a-z]*\)".*/\1/' | tr '\n' ' ')
[ "$results" = "kept failed kept restarted " ] || fail "reload results were: $results"
grep '"result":"failed"' "$tmp/stats.jsonl" | grep -q 'scene.lua:10:' || fail "the syntax error does not name scene.lua:10"
grep '"result":"restarted"' "$tmp/stats.jsonl" | grep -q '12 particles, was 11' || fail "the restart does not say why"
# latency from each save (logged here) to its reload (stamped by the runner)
grep '"event":"reload"' "$tmp/stats.jsonl" | sed 's/.*"wall":\([0-9.]*\),.*/\1/' >"$tmp/reloads"
latencies=$(paste "$tmp/saves" "$tmp/reloads" | awk '{ printf "%.0f ", ($2 - $1) * 1000 }')
for ms in $latencies; do
  [ "$ms" -ge 0 ] && [ "$ms" -le 250 ] || fail "save-to-reload latencies $latencies ms: one is over 250 ms"
done
# the clock carries on through kept and failed reloads, and starts again on the restart
awk -F'"time":' '
  /"event":"reload"/ { if ($0 ~ /restarted/) restarted = 1; next }
  { split($2, a, ","); t = a[1] + 0
    if (!restarted && t < last) { print "time went back from " last " to " t; bad = 1 }
    if (restarted && !seen_restart) { if (t > 0.1) { print "restart did not reset the clock: " t; bad = 1 } seen_restart = 1 }
    last = t }
  END { exit bad }' "$tmp/stats.jsonl" || fail "the clock did not behave"
# the last good scene kept running while the file was broken: frames kept coming
frames=$(grep -c '"frame"' "$tmp/stats.jsonl")
[ "$frames" -ge 420 ] || fail "only $frames frames"
echo "hot reload: kept, failed, kept, restarted; save-to-reload latencies $latencies ms"
