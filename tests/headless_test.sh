#!/usr/bin/env bash
# The headless runner writes one JSON line per frame with finite diagnostics, and rejects
# bad arguments with a message that names the bad value.
set -u
bin="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

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
echo "headless runner: ok"
