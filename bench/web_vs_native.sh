#!/usr/bin/env bash
# The browser build's step time against the native build's, in the same run: each scene in
# bench/scenes runs headless for 400 frames in the native program and in the browser build's
# objects under node (web/build.sh leaves them in build-web/), alternating, on one thread and on
# THREADS, and the median step of frames 100-400 is compared: the browser on one thread against
# the native build on one, and the browser on THREADS against the native build on THREADS and on one.
#   bash bench/web_vs_native.sh [NATIVE_PROGRAM] [NODE_RUNNER] [RUNS] [THREADS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
native=${1:-$root/build/springbox}
runner=${2:-$root/build-web/springbox-node.js}
runs=${3:-3}
threads=${4:-$(nproc)}
export NODE_OPTIONS=--no-experimental-fetch # for emscripten's output under node 20
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { python3 -c "import json, statistics, sys
v = [json.loads(l)['step_ms'] for l in open(sys.argv[1]) if l.strip()][100:]
print('%.3f' % statistics.median(v))" "$1"; }
ratio() { python3 -c "print('%.2f' % ($1 / $2))"; }
printf '%-16s %10s %10s %8s %10s %10s %8s %12s\n' scene native_1 web_1 ratio "native_$threads" "web_$threads" ratio "web_$threads/native_1"
for scene in "$root"/bench/scenes/*.lua; do
  for run in $(seq "$runs"); do
    for t in 1 "$threads"; do
      "$native" --headless --threads "$t" --frames 400 --stats "$tmp/n$t.jsonl" "$scene" >/dev/null
      node "$runner" --headless --threads "$t" --frames 400 --stats "$tmp/w$t.jsonl" "$scene" >/dev/null
    done
    n1=$(median "$tmp/n1.jsonl") w1=$(median "$tmp/w1.jsonl")
    nt=$(median "$tmp/n$threads.jsonl") wt=$(median "$tmp/w$threads.jsonl")
    printf '%-16s %10s %10s %8s %10s %10s %8s %12s\n' "$(basename "$scene" .lua)" "$n1" "$w1" "$(ratio "$w1" "$n1")" \
      "$nt" "$wt" "$(ratio "$wt" "$nt")" "$(ratio "$wt" "$n1")"
  done
done
