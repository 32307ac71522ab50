#!/usr/bin/env bash
# Every Lua block of the README and the manual (docs/*.md, docs/decisions/*.md) that is a whole
# scene (it requires springbox) loads and runs 60 frames headless without an error; a block that
# is a fragment of one (it does not) must at least compile as Lua 5.4 (lua5.4's loadfile). A
# sample that no longer works fails the build.
. "$(dirname "$0")/shell_preamble.sh"
bin="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
ran=0
fragments=0
for doc in "$root/README.md" "$root"/docs/*.md "$root"/docs/decisions/*.md; do
  awk -v dir="$tmp" -v base="$(basename "$doc" .md)" '
    /^```lua$/ { n += 1; f = sprintf("%s/%s_%d.lua", dir, base, n); inside = 1; next }
    /^```$/ && inside { inside = 0; close(f); next }
    inside { print > f }' "$doc"
done
for f in "$tmp"/*.lua; do
  [ -e "$f" ] || continue
  if ! grep -q 'require "springbox"\|require("springbox")\|require '"'"'springbox'"'"'' "$f"; then
    if command -v lua5.4 >/dev/null; then
      echo 'assert(loadfile(arg[1]))' | lua5.4 - "$f" >"$tmp/out" 2>&1 ||
        fail "$(basename "$f") does not compile: $(head -1 "$tmp/out")"
      echo "ok   $(basename "$f"): a fragment, compiles"
      fragments=$((fragments + 1))
    else
      echo "--   $(basename "$f"): a fragment; lua5.4 is missing to compile it"
    fi
    continue
  fi
  (cd "$tmp" && "$bin" --headless --frames 60 "$f" >"$tmp/out" 2>&1) ||
    fail "$(basename "$f") does not run: $(tail -5 "$tmp/out")"
  echo "ok   $(basename "$f") runs"
  ran=$((ran + 1))
done
[ "$ran" -ge 2 ] || fail "only $ran scenes found in the README and docs/"
echo "doc samples: $ran scenes run, $fragments fragments compile"
