#!/usr/bin/env bash
# The top-level rockspec: its version is the CMake project's, and `luarocks make` (Debian's
# luarocks, Lua 5.4) builds and installs the module into a rocks tree, from which the stock
# lua5.4 requires it and steps a world. Built from a copy, so the sources stay clean.
. "$(dirname "$0")/shell_preamble.sh"
src="$1"
version="$2"

spec="$src/springbox-$version-1.rockspec"
[ -f "$spec" ] || fail "no springbox-$version-1.rockspec for the CMake version $version: $(ls "$src"/*.rockspec)"
grep -q "^version = \"$version-1\"" "$spec" || fail "the rockspec's version is not $version-1"
grep -q "SPRINGBOX_VERSION=\\\\\"$version\\\\\"" "$spec" || fail "the rockspec builds another version than $version"
mkdir -p "$tmp/src"
cp -r "$src/src" "$src/include" "$spec" "$tmp/src/"
(cd "$tmp/src" && luarocks --lua-version 5.4 make --tree "$tmp/rocks" "$(basename "$spec")") >"$tmp/log" 2>&1 ||
  fail "luarocks make: $(tail -5 "$tmp/log")"
eval "$(luarocks --lua-version 5.4 --tree "$tmp/rocks" path)"
ROCKS="$tmp/rocks" VERSION="$version" lua5.4 -e '
  local sb = require "springbox"
  assert(package.searchpath("springbox", package.cpath):find(os.getenv("ROCKS"), 1, true), "not the rock")
  assert(sb.version == os.getenv("VERSION"), sb.version)
  local w = sb.world{ gravity = {0, -9.81} }
  local p = w:particle{ x = 0, y = 0 }
  assert(w:step(60))
  assert(p.y < -4, "one second of free fall")
  print("rock: springbox " .. sb.version .. " from " .. package.searchpath("springbox", package.cpath))' ||
  fail "the rock does not load or run"
