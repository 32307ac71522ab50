#!/usr/bin/env bash
# The browser build: web/build.sh builds the site, the page is driven in Debian's chromium as a
# designer would (web/test.js), and the same objects run headless under node and give every
# shipped scene the native build's state hash at every frame, bit for bit.
#   bash tests/web_test.sh NATIVE_SPRINGBOX
set -eu
native=$(realpath "${1:?usage: tests/web_test.sh NATIVE_SPRINGBOX}")
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${SPRINGBOX_WEB_CACHE:-$root/build-web}
bash "$root/web/build.sh" "$cache/site"
if ! command -v chromium >/dev/null; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  echo "installing: chromium"
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium >/dev/null
fi
NODE_PATH="$cache/npm/node_modules" NODE_OPTIONS= node "$root/web/test.js" "$cache/site" "$native"
export NODE_OPTIONS=--no-experimental-fetch # for emscripten's output under node 20

frames=300
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
for scene in "$root"/scripts/*.lua; do
  name=$(basename "$scene")
  "$native" --headless --frames $frames --stats "$tmp/native.jsonl" "$scene" >/dev/null 2>&1 || true
  node "$cache/springbox-node.js" --headless --frames $frames --stats "$tmp/web.jsonl" "$scene" >/dev/null 2>&1 || true
  grep -o '"hash":"[0-9a-f]*"' "$tmp/native.jsonl" >"$tmp/native.hashes" 2>/dev/null || true
  grep -o '"hash":"[0-9a-f]*"' "$tmp/web.jsonl" >"$tmp/web.hashes" 2>/dev/null || true
  n=$(wc -l <"$tmp/native.hashes")
  first=$(diff "$tmp/native.hashes" "$tmp/web.hashes" | sed -n '1s/^\([0-9]*\).*/\1/p')
  if [ "$n" -lt $frames ] || [ -n "$first" ]; then
    echo "FAIL $name: $n native frames; the browser build's state differs from frame ${first:-?} on"
    bad=1
  else
    echo "ok   $name: the same state bits at each of $n frames"
  fi
done
[ $bad = 0 ] || exit 1
echo "the browser build runs the page and every shipped scene to the native build's bits"
