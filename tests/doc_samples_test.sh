#!/usr/bin/env bash
# Every Lua block of the README and the manual (docs/*.md) that is a whole scene (it requires
# springbox) loads and runs 60 frames headless without an error; a block that is a fragment of
# one (it does not) is named and left. A sample that no longer works fails the build.
. "$(dirname "$0")/shell_preamble.sh"
bin="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
ran=0
for doc in "$root/README.md" "$root"/docs/*.md; do
  awk -v dir="$tmp" -v base="$(basename "$doc" .md)" '
    /^```lua$/ { n += 1; f = sprintf("%s/%s_%d.lua", dir, base, n); inside = 1; next }
    /^```$/ && inside { inside = 0; close(f); next }
    inside { print > f }' "$doc"
done
for f in "$tmp"/*.lua; do
  [ -e "$f" ] || continue
  if ! grep -q 'require "springbox"\|require("springbox")\|require '"'"'springbox'"'"'' "$f"; then
    echo "--   $(basename "$f"): a fragment, not a scene"
    continue
  fi
  (cd "$tmp" && "$bin" --headless --frames 60 "$f" >"$tmp/out" 2>&1) ||
    fail "$(basename "$f") does not run: $(tail -5 "$tmp/out")"
  echo "ok   $(basename "$f") runs"
  ran=$((ran + 1))
done
[ "$ran" -ge 2 ] || fail "only $ran scenes found in the README and docs/"
echo "doc samples: $ran scenes run"
