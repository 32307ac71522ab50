#!/usr/bin/env bash
# cpack -G DEB builds a package with its dependencies declared; dpkg -c lists the program, the
# module, the core and the docs at their places; and, as root (CI), a real dpkg -i installs it
# and the program and module run from /usr with no environment set, then dpkg -r removes it.
. "$(dirname "$0")/shell_preamble.sh"
build="$1"
version="$2"
need dpkg-deb

(cd "$tmp" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp") >"$tmp/cpack.log" 2>&1 ||
  fail "cpack: $(tail -5 "$tmp/cpack.log")"
deb=$(ls "$tmp"/springbox_"$version"_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "no springbox_${version}_*.deb: $(ls "$tmp")"
dpkg-deb -c "$deb" >"$tmp/contents"
for f in ./usr/bin/springbox ./usr/lib/lua/5.4/springbox.so ./usr/lib/libspringbox_core.a ./usr/include/springbox/sb_world.h \
         ./usr/lib/pkgconfig/springbox.pc ./usr/share/man/man1/springbox.1 ./usr/share/applications/springbox.desktop \
         ./usr/share/springbox/scripts/bridge.lua ./usr/share/springbox/springbox.meta.lua ./usr/share/doc/springbox/copyright; do
  grep -q " $f\$" "$tmp/contents" || fail "the package lacks $f"
done
depends=$(dpkg-deb -f "$deb" Depends)
# every library the program and the module load comes from a package Depends names
mkdir -p "$tmp/x" && dpkg-deb -x "$deb" "$tmp/x"
needed=$(readelf -d "$tmp/x/usr/bin/springbox" "$tmp/x/usr/lib/lua/5.4/springbox.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u)
for lib in $needed; do
  path=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
  pkg=$(dpkg -S "$(readlink -f "${path:-/nonexistent}")" 2>/dev/null | head -1 | cut -d: -f1)
  [ -n "$pkg" ] || pkg=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1)
  [ -n "$pkg" ] || fail "no package holds $lib ($path)"
  echo "$depends" | grep -qE "(^|, )$pkg( |,|$)" || fail "the program loads $lib from $pkg, which Depends does not name: $depends"
done
for d in lua5.4 fonts-dejavu-core; do # what it runs and reads, not links
  echo "$depends" | grep -q "$d" || fail "Depends does not declare $d: $depends"
done
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "package version $(dpkg-deb -f "$deb" Version)"

if [ "$(id -u)" -ne 0 ] || dpkg -s springbox >/dev/null 2>&1; then
  echo "deb: contents and dependencies ok (no install: not root, or springbox is already installed)"
  exit 0
fi
dpkg -i "$deb" >"$tmp/dpkg.log" 2>&1 || { dpkg -r springbox >/dev/null 2>&1; fail "dpkg -i: $(tail -5 "$tmp/dpkg.log")"; }
status=0
/usr/bin/springbox --version | grep -qx "springbox $version" || status=1
/usr/bin/springbox --headless --frames 30 /usr/share/springbox/scripts/rope.lua >/dev/null 2>&1 || status=2
(cd "$tmp" && env -u LUA_CPATH -u LUA_PATH lua5.4 -e 'local sb = require "springbox"; assert(sb.version == "'"$version"'"); assert(sb.world{}:step(5))') || status=3
dpkg -r springbox >/dev/null 2>&1 || status=4
[ $status -eq 0 ] || fail "the installed package (step $status: 1 version, 2 program, 3 module, 4 removal)"
echo "deb: $(basename "$deb") installs, runs from /usr and removes cleanly"
