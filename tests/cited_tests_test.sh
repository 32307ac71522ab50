#!/bin/sh
# Every test the docs and the README cite by name (`file.a_claim_named_so`) is one CTest runs: a
# test renamed or removed leaves no claim in the manual pointing at nothing.
#   sh tests/cited_tests_test.sh CTEST BUILD_DIR   (from the source root)
set -eu
ctest=$1
build=$2
known=$(mktemp)
trap 'rm -f "$known"' EXIT
"$ctest" --test-dir "$build" -N | sed -n 's/^ *Test *#[0-9]*: //p' | sort -u >"$known"
prefixes=$(cut -d. -f1 "$known" | sort -u | paste -sd'|' -)
[ -n "$prefixes" ] || { echo "CTest lists no tests in $build"; exit 1; }
cited=$(grep -ohE "\`($prefixes)\.[a-z0-9]+_[a-z0-9_]+\`" docs/*.md README.md | tr -d '`' | sort -u)
missing=$(printf '%s\n' "$cited" | comm -23 - "$known")
if [ -n "$missing" ]; then
  echo "cited in docs/ or the README, but no test has the name:"
  printf '  %s\n' $missing
  exit 1
fi
echo "$(printf '%s\n' "$cited" | wc -l) test names cited in docs/ and the README, each a test CTest runs"
