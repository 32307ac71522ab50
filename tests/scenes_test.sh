#!/usr/bin/env bash
# Every shipped scene loads in the sandbox and runs 4 s headless without an error, a halt
# on a non-finite value, or a spring left stretched past 50% at the end. compare.lua is
# exempt from the stretch bound: its first world is the naive impulse spring, whose sag is
# what the scene exists to show.
. "$(dirname "$0")/shell_preamble.sh"
bin="$1"; scripts="$2"
status=0
for scene in "$scripts"/*.lua; do
  name=$(basename "$scene")
  if ! "$bin" --headless --frames 240 --stats "$tmp/s.jsonl" "$scene" >"$tmp/out" 2>&1; then
    echo "FAIL $name: exit $?"; cat "$tmp/out"; status=1; continue
  fi
  if grep -q '"event":"update_error"' "$tmp/s.jsonl"; then echo "FAIL $name: update() raised"; status=1; fi
  stretch=$(tail -n 1 "$tmp/s.jsonl" | sed 's/.*"max_stretch":\([^,]*\),.*/\1/')
  if [ "$name" != compare.lua ] && ! awk -v s="$stretch" 'BEGIN { exit !(s < 0.5) }'; then
    echo "FAIL $name: max stretch $stretch at the end"; status=1; continue
  fi
  echo "ok   $name (max stretch at 4 s: $stretch)"
done
exit $status
