#!/usr/bin/env bash
# Builds springbox twice, normally and with -fsanitize=address,undefined, warnings as
# errors, runs every test in the first and every test but the long physics maps (label sweep:
# the fast tests run the same code on smaller scenes) in the second, then builds the browser
# site and tests it.
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
# each stage says when it starts, in seconds since the run began, so a slow stage shows
stage() { echo "== $1 (at ${SECONDS} s)"; }
for variant in release sanitize; do
  dir="build-test-$variant"
  flags=(-DSPRINGBOX_WERROR=ON)
  select=()
  [ "$variant" = sanitize ] && flags+=(-DSPRINGBOX_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug) && select=(-LE sweep)
  stage "$variant build"
  cmake -S . -B "$dir" "${flags[@]}" >/dev/null
  cmake --build "$dir" -j "$jobs" >/dev/null
  stage "$variant tests"
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$dir" --output-on-failure -j "$jobs" "${select[@]}"
done
# The browser build: the site built once, its page driven in chromium, its bits against the
# release build's (SPRINGBOX_SKIP_WEB=1 leaves it out)
if [ "${SPRINGBOX_SKIP_WEB:-0}" != 1 ]; then
  stage "web build and tests"
  bash tests/web_test.sh build-test-release/springbox
fi
stage "done"
