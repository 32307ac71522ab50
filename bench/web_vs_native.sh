#!/usr/bin/env bash
# The browser build's step time against the native build's, in the same run: each scene in
# bench/scenes runs headless for 400 frames on one thread in the native program and in the
# browser build's objects under node (web/build.sh leaves them in build-web/), alternating,
# and the median step of frames 100-400 is compared.
#   bash bench/web_vs_native.sh [NATIVE_PROGRAM] [NODE_RUNNER] [RUNS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
native=${1:-$root/build/springbox}
runner=${2:-$root/build-web/springbox-node.js}
runs=${3:-3}
export NODE_OPTIONS=--no-experimental-fetch # for emscripten's output under node 20
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { python3 -c "import json, statistics, sys
v = [json.loads(l)['step_ms'] for l in open(sys.argv[1]) if l.strip()][100:]
print('%.3f' % statistics.median(v))" "$1"; }
printf '%-16s %10s %10s %8s\n' scene native_ms web_ms ratio
for scene in "$root"/bench/scenes/*.lua; do
  for run in $(seq "$runs"); do
    "$native" --headless --threads 1 --frames 400 --stats "$tmp/n.jsonl" "$scene" >/dev/null
    node "$runner" --headless --frames 400 --stats "$tmp/w.jsonl" "$scene" >/dev/null
    n=$(median "$tmp/n.jsonl") w=$(median "$tmp/w.jsonl")
    printf '%-16s %10s %10s %8.2f\n' "$(basename "$scene" .lua)" "$n" "$w" "$(python3 -c "print($w / $n)")"
  done
done
