#!/usr/bin/env bash
# Installs springbox into a staging directory (DESTDIR, prefix /usr/local) and uses it from its
# installed places only: the program headless on an installed scene and on its default scene,
# the Lua module from the stock lua5.4 at the path lua5.4 searches under /usr/local, a C and a C++
# program built against the installed core through pkg-config, and the man page, desktop entry, icon
# and LuaLS definitions where a desktop and an editor look for them.
. "$(dirname "$0")/shell_preamble.sh"
build="$1"
version="$2"
src="$(cd "$(dirname "$0")/.." && pwd)"

DESTDIR="$tmp/stage" cmake --install "$build" --prefix /usr/local >"$tmp/install.log" 2>&1 ||
  fail "cmake --install: $(tail -3 "$tmp/install.log")"
root="$tmp/stage/usr/local"

"$root/bin/springbox" --version | grep -qx "springbox $version" || fail "--version says: $("$root/bin/springbox" --version)"
"$root/bin/springbox" --headless --frames 60 "$root/share/springbox/scripts/rope.lua" >"$tmp/out" 2>&1 ||
  fail "the installed program on an installed scene: $(tail -3 "$tmp/out")"
grep -q "done: 60 frames\|^ *1.00" "$tmp/out" || fail "no run report: $(cat "$tmp/out")"
# no scene given: the installed default (the bridge), found next to the program, not in the sources
(cd "$tmp" && "$root/bin/springbox" --headless --frames 5 >"$tmp/out" 2>&1) || fail "default scene: $(cat "$tmp/out")"
grep -q "Suspension bridge" "$tmp/out" || fail "the default scene is not the installed bridge: $(head -2 "$tmp/out")"

# the module, from the stock interpreter, at <prefix>/lib/lua/5.4 (in lua5.4's package.cpath for /usr/local)
lua5.4 -e 'assert(package.cpath:find("/usr/local/lib/lua/5.4/?.so", 1, true))' || fail "lua5.4 does not search /usr/local/lib/lua/5.4"
[ -f "$root/lib/lua/5.4/springbox.so" ] || fail "no lib/lua/5.4/springbox.so"
LUA_CPATH="$root/lib/lua/5.4/?.so" lua5.4 -e '
  local sb = require "springbox"
  assert(sb.version == "'"$version"'", sb.version)
  local w = sb.world{}
  local a, b = w:particle{ fixed = true }, w:particle{ x = 1 }
  w:spring(a, b, { hertz = 4, damping_ratio = 0.5 })
  assert(w:step(60))
  assert(b.y < 0, "the particle fell")' || fail "the installed module does not work from stock lua5.4"

# a C program against the installed core, through pkg-config: the manual's hello world
# (docs/c-api.md), as it is written there
sed -n '/^```c$/,/^```$/p' "$src/docs/c-api.md" | sed '1d;$d' >"$tmp/prog.c"
[ -s "$tmp/prog.c" ] || fail "no C program in docs/c-api.md"
export PKG_CONFIG_PATH="$root/lib/pkgconfig"
pkg-config --modversion springbox | grep -qx "$version" || fail "springbox.pc version: $(pkg-config --modversion springbox)"
flags=$(pkg-config --define-variable=prefix="$root" --cflags --libs springbox) || fail "pkg-config springbox"
cc "$tmp/prog.c" $flags -o "$tmp/prog" 2>"$tmp/cc.log" || fail "building against the installed core: $(cat "$tmp/cc.log")"
"$tmp/prog" >/dev/null || fail "the program built against the installed core"
# the same core from C++: the headers declare it extern "C", and <springbox/...> finds them
# (every installed header, each function in it marked SB_API, the export mark)
unmarked=$(grep -nE '^[a-z_][a-z_0-9 *]+\(' "$root"/include/springbox/*.h | grep -vE ':(typedef|static|extern) ' || true)
[ -z "$unmarked" ] || fail "public functions without SB_API: $unmarked"
for h in "$root"/include/springbox/*.h; do echo "#include <springbox/$(basename "$h")>"; done >"$tmp/prog.cpp"
cat >>"$tmp/prog.cpp" <<'CPP'
#include <cstdio>

int main()
{
    sb_world_def def = sb_default_world_def();
    sb_world *w = sb_world_create(&def);
    sb_particle_def p = sb_default_particle_def();
    p.fixed = true;
    sb_particle_id top = sb_world_add_particle(w, &p, nullptr);
    p.fixed = false;
    p.position.x = 1.0;
    sb_particle_id bob = sb_world_add_particle(w, &p, nullptr);
    sb_spring_def s = sb_default_spring_def();
    s.a = top;
    s.b = bob;
    s.tuning = sb_tuning_hertz(2.0, 0.1);
    sb_world_add_spring(w, &s, nullptr, nullptr);
    for (int i = 0; i < 60; ++i)
        sb_world_step(w);
    sb_particle_def now;
    sb_particle_get(w, bob, &now);
    std::printf("%g %g\n", now.position.y, sb_sin(0.5));
    sb_world_destroy(w);
    return now.position.y < 0.0 ? 0 : 1;
}
CPP
c++ "$tmp/prog.cpp" $flags -o "$tmp/progpp" 2>"$tmp/cxx.log" || fail "building C++ against the installed core: $(cat "$tmp/cxx.log")"
"$tmp/progpp" >/dev/null || fail "the C++ program built against the installed core"

for f in share/man/man1/springbox.1 share/applications/springbox.desktop share/icons/hicolor/scalable/apps/springbox.svg \
         share/springbox/springbox.meta.lua share/springbox/scripts/screenshots/bridge.png include/springbox/sb_world.h \
         include/springbox/sb_structure.h share/doc/springbox/copyright share/doc/springbox/LICENSE; do
  [ -f "$root/$f" ] || fail "not installed: $f"
done
# the man page is --help: every option of --help is in it
for opt in $("$root/bin/springbox" --help | grep -o -- '--[a-z]*' | sort -u); do
  grep -q -- "\\\\-\\\\-${opt#--}" "$root/share/man/man1/springbox.1" || fail "man page lacks $opt"
done
echo "install: ok ($(find "$tmp/stage" -type f | wc -l) files)"
