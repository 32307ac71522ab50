#!/usr/bin/env bash
# Regenerates the benchmark's tables in docs/performance.md, between its two markers, from one
# run of springbox_bench: every engine on the same scenes, on one clock, interleaved.
#   bash bench/table.sh [BOX2D_V3_DIR]
# BOX2D_V3_DIR: Box2D v3's source, built with its own CMake in BOX2D_V3_DIR/build (optional).
set -euo pipefail
cd "$(dirname "$0")/.."
b2v3=${1:-}
bash .ci/install-deps --bench >/dev/null
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release ${b2v3:+-DSPRINGBOX_BOX2D_V3="$b2v3"} >/dev/null
cmake --build build-bench -j --target springbox_bench >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
./build-bench/springbox_bench --repeats 3 --only "cloth 96" --only "cloth 128" --only "ball pit 4000" \
    --only "walled pile 4000" --only "wrecking ball" --only "column 20" --only "net 1000:1" \
    --engine "(default)" --engine "threads" --engine Box2D --engine Chipmunk \
    --csv "$out/results.csv" --plot "$out/results.png" --markdown "$out/table.md" >/dev/null
{
    peer=""
    [ -n "$b2v3" ] && peer=", Box2D v3 $(git -C "$b2v3" rev-parse --short HEAD 2>/dev/null || echo '(a build)') beside it"
    echo "$(date -u +%Y-%m-%d), springbox $(git rev-parse --short HEAD), $(nproc) cores$peer:"
    echo
    cat "$out/table.md"
} > "$out/block.md"
doc=docs/performance.md
begin='<!-- bench/table.sh: begin -->'
end='<!-- bench/table.sh: end -->'
grep -qF "$begin" "$doc" && grep -qF "$end" "$doc" || { echo "bench/table.sh: $doc has no markers" >&2; exit 1; }
awk -v begin="$begin" -v end="$end" -v block="$out/block.md" '
    $0 == begin { print; while ((getline line < block) > 0) print line; skip = 1; next }
    $0 == end { skip = 0 }
    !skip' "$doc" > "$out/doc.md"
cp "$out/doc.md" "$doc"
echo "bench/table.sh: wrote the tables in $doc"
