#!/usr/bin/env bash
# The manual's table of the window's keys is the window's own: docs/window.md holds exactly what
# `springbox --keys` prints from the table the key handling and the help box read.
. "$(dirname "$0")/shell_preamble.sh"
bin="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
sed -n '/^<!-- keys:/,/^<!-- end of keys -->/p' "$root/docs/window.md" | sed '1d;$d' >"$tmp/doc"
[ -s "$tmp/doc" ] || fail "docs/window.md has no keys table between its markers"
"$bin" --keys >"$tmp/keys" || fail "springbox --keys failed"
diff -u "$tmp/doc" "$tmp/keys" || fail "docs/window.md's keys differ from springbox --keys (paste its output there)"
echo "docs/window.md's keys are the window's"
