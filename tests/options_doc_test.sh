#!/usr/bin/env bash
# The manual's table of the options is the program's own: docs/running.md holds exactly what
# `springbox --options` prints from the table the parser and --help read.
. "$(dirname "$0")/shell_preamble.sh"
bin="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
sed -n '/^<!-- options:/,/^<!-- end of options -->/p' "$root/docs/running.md" | sed '1d;$d' >"$tmp/doc"
[ -s "$tmp/doc" ] || fail "docs/running.md has no options table between its markers"
"$bin" --options >"$tmp/options" || fail "springbox --options failed"
diff -u "$tmp/doc" "$tmp/options" || fail "docs/running.md's options differ from springbox --options (paste its output there)"
echo "docs/running.md's options are the program's"
