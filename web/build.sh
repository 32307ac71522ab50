#!/usr/bin/env bash
# Builds springbox for the browser into DIR: index.html and what it loads (a static site).
#   bash web/build.sh DIR
# Everything comes from Debian's packages (emscripten, binaryen, and the source packages of
# SDL2, SDL2_ttf, SDL2_image, FreeType, giflib and Lua 5.4, built here for WebAssembly) and from
# npm (the editor, CodeMirror 5). The built libraries are kept in build-web/ for the next run.
set -eu
out=${1:?usage: bash web/build.sh DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${SPRINGBOX_WEB_CACHE:-$root/build-web}
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$cache" "$out"
out=$(cd "$out" && pwd)

# ---------------------------------------------------------------- tools
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
packages=(emscripten binaryen dpkg-dev fonts-dejavu-core cmake make)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v node >/dev/null || missing+=(nodejs) # a node of the machine's own is fine
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi
# emcc needs Debian's acorn, which node 20 does not look for by itself; emscripten's output
# runs under node 20 without its experimental fetch
export NODE_PATH=/usr/share/nodejs
export NODE_OPTIONS=--no-experimental-fetch
# emscripten's cache is Debian's frozen one: nothing is downloaded. Its ports (-sUSE_SDL=2)
# would download, so the libraries below are built from Debian's sources instead.

# runs up to $jobs commands at once (`par CMD...`, then `par_wait`): the compiles are one file
# each, so a one-at-a-time loop would leave cores idle; the first that fails stops the build
running=0
par() {
  "$@" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then
    wait -n || { echo "web/build.sh: failed: a compile (above)" >&2; exit 1; }
    running=$((running - 1))
  fi
}
par_wait() {
  while [ $running -gt 0 ]; do
    wait -n || { echo "web/build.sh: failed: a compile (above)" >&2; exit 1; }
    running=$((running - 1))
  done
}
# runs a command with its output in a log, shown when it fails
quiet() {
  local log=$1; shift
  "$@" >>"$log" 2>&1 || { tail -40 "$log"; echo "web/build.sh: failed: $* (the whole output: $log)" >&2; exit 1; }
}

# ---------------------------------------------------------------- sources
src="$cache/src"
sources=(libsdl2 libsdl2-ttf libsdl2-image freetype giflib lua5.4)
if [ ! -f "$src/.done" ]; then
  # apt-get source needs deb-src lines for the archive the machine already uses
  if ! apt-get indextargets --format '$(CREATED_BY)' 2>/dev/null | grep -q '^Sources$'; then
    echo "adding deb-src for Debian's archive (/etc/apt/sources.list.d/springbox-web-src.sources)"
    sed -n '/^Types: deb$/,/^$/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | sed 's/^Types: deb$/Types: deb-src/' \
      >/tmp/springbox-web-src.sources
    if [ ! -s /tmp/springbox-web-src.sources ]; then
      grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' >/tmp/springbox-web-src.list
      $sudo_cmd cp /tmp/springbox-web-src.list /etc/apt/sources.list.d/springbox-web-src.list
    else
      $sudo_cmd cp /tmp/springbox-web-src.sources /etc/apt/sources.list.d/springbox-web-src.sources
    fi
    $sudo_cmd apt-get update -qq
  fi
  rm -rf "$src" && mkdir -p "$src"
  (cd "$src" && quiet "$cache/sources.log" apt-get source "${sources[@]}")
  touch "$src/.done"
fi
dir_of() { find "$src" -maxdepth 1 -type d -name "$1-[0-9]*" | head -1; }

# ---------------------------------------------------------------- libraries
prefix="$cache/prefix"
# Every object is compiled for threads (-pthread: atomics and shared memory), so that one set of
# libraries links both the threaded page and the one-thread page. A cache built otherwise is
# rebuilt.
cflags=(-O2 -pthread)
if [ "$(cat "$prefix/.cflags" 2>/dev/null)" != "${cflags[*]}" ]; then
  rm -rf "$prefix" "$cache/sdl2" "$cache/freetype" "$cache/obj"
fi
mkdir -p "$prefix/lib" "$prefix/include"
echo "${cflags[*]}" >"$prefix/.cflags"
if [ ! -f "$prefix/lib/libSDL2.a" ]; then
  d=$(dir_of libsdl2)
  # SDL2's configure runs about 160 test builds, each one or more emcc runs (minutes on two cores);
  # web/sdl2-checks.cmake holds what they find for one SDL2, one emscripten and these flags, and
  # seeds the configure when all three are these (the same SDL_config.h), else it runs them all
  checks=()
  emcc_version=$(emcc --version | sed -n '1s/^emcc ([^)]*) \([0-9.]*\).*/\1/p')
  key="# for: emcc $emcc_version, $(basename "$d"), ${cflags[*]}"
  if [ "$(sed -n 2p "$root/web/sdl2-checks.cmake")" = "$key" ]; then
    checks=(-C "$root/web/sdl2-checks.cmake")
    echo "== SDL2"
  else
    echo "== SDL2 (a few minutes: web/sdl2-checks.cmake is for another SDL2, emscripten or flags)"
  fi
  quiet "$cache/sdl2.log" emcmake cmake "${checks[@]}" -S "$d" -B "$cache/sdl2" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="${cflags[*]}" \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DSDL_SHARED=OFF -DSDL_STATIC=ON -DSDL_TEST=OFF -DSDL_THREADS=OFF
  quiet "$cache/sdl2.log" cmake --build "$cache/sdl2" -j "$jobs"
  quiet "$cache/sdl2.log" cmake --install "$cache/sdl2"
fi
if [ ! -f "$prefix/lib/libfreetype.a" ]; then
  echo "== FreeType"
  d=$(dir_of freetype)
  quiet "$cache/freetype.log" emcmake cmake -S "$d" -B "$cache/freetype" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="${cflags[*]}" \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DFT_DISABLE_ZLIB=ON -DFT_DISABLE_BZIP2=ON -DFT_DISABLE_PNG=ON \
    -DFT_DISABLE_HARFBUZZ=ON -DFT_DISABLE_BROTLI=ON
  quiet "$cache/freetype.log" cmake --build "$cache/freetype" -j "$jobs"
  quiet "$cache/freetype.log" cmake --install "$cache/freetype"
fi
# a static library from a list of C files: lib NAME DIR CFLAGS... -- FILES...
lib() {
  local name=$1 dir=$2; shift 2
  local flags=() files=()
  while [ "$1" != -- ]; do flags+=("$1"); shift; done; shift
  files=("$@")
  local objs=()
  mkdir -p "$cache/obj/$name"
  for f in "${files[@]}"; do
    local o="$cache/obj/$name/$(basename "${f%.c}").o"
    par emcc "${cflags[@]}" "${flags[@]}" -c "$dir/$f" -o "$o"
    objs+=("$o")
  done
  par_wait
  emar rcs "$prefix/lib/lib$name.a" "${objs[@]}"
}
if [ ! -f "$prefix/lib/liblua.a" ]; then
  echo "== Lua 5.4"
  d=$(dir_of lua5.4)/src
  files=()
  for f in "$d"/*.c; do
    case $(basename "$f") in lua.c|luac.c) ;; *) files+=("$(basename "$f")") ;; esac
  done
  # Debian's luaconf.h names the machine's multiarch triplet in a header its build writes
  echo '#define DEB_HOST_MULTIARCH "wasm32-emscripten"' >"$prefix/include/lua5.4-deb-multiarch.h"
  lib lua "$d" -I"$prefix/include" -DLUA_COMPAT_5_3 -DLUA_USE_POSIX -- "${files[@]}"
  cp "$d"/lua.h "$d"/luaconf.h "$d"/lualib.h "$d"/lauxlib.h "$prefix/include/"
fi
if [ ! -f "$prefix/lib/libSDL2_ttf.a" ]; then
  echo "== SDL2_ttf"
  d=$(dir_of libsdl2-ttf)
  lib SDL2_ttf "$d" -I"$prefix/include/SDL2" -I"$prefix/include/freetype2" -- SDL_ttf.c
  cp "$d/SDL_ttf.h" "$prefix/include/SDL2/"
fi
if [ ! -f "$prefix/lib/libSDL2_image.a" ]; then
  echo "== SDL2_image (PNG written through its bundled miniz: not the common backend, which wants libpng)"
  d=$(dir_of libsdl2-image)
  lib SDL2_image "$d" -I"$prefix/include/SDL2" -DSDL_IMAGE_SAVE_PNG=1 -DUSE_STBIMAGE -- IMG.c IMG_png.c
  cp "$d/SDL_image.h" "$prefix/include/SDL2/"
fi
if [ ! -f "$prefix/lib/libgif.a" ]; then
  echo "== giflib"
  d=$(dir_of giflib)
  lib gif "$d" -- dgif_lib.c egif_lib.c gifalloc.c gif_err.c gif_hash.c openbsd-reallocarray.c quantize.c
  cp "$d/gif_lib.h" "$prefix/include/"
fi

# ---------------------------------------------------------------- springbox
echo "== springbox"
obj="$cache/obj/springbox"
mkdir -p "$obj"
flags=("${cflags[@]}" -std=c11 -ffp-contract=off -msimd128 -Wall -Wextra -I"$root/include/springbox" -I"$root/src/core" -I"$root/src/lua" -I"$root/src/app" -I"$prefix/include"
       -I"$prefix/include/SDL2" -DSPRINGBOX_HAVE_SDL -DSPRINGBOX_HAVE_GIF -DSPRINGBOX_SCRIPTS_DIR='"/scripts"')
version=$(sed -n 's/^project(springbox VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
flags+=(-DSPRINGBOX_VERSION="\"$version\"")
objs=()
for f in "$root"/src/core/*.c "$root"/src/lua/*.c "$root"/src/app/*.c; do
  base=$(basename "$f")
  o="$obj/$(basename "$(dirname "$f")")_${base%.*}.o"
  if [ ! -f "$o" ] || [ "$f" -nt "$o" ] || [ -n "$(find "$root/src" "$root/include" -name '*.h' -newer "$o" | head -1)" ]; then
    par emcc "${flags[@]}" -c "$f" -o "$o"
  fi
  objs+=("$o")
done
par_wait
font=/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf
libs=(-L"$prefix/lib" -lSDL2_ttf -lSDL2_image -lfreetype -lgif -llua -lSDL2 --js-library "$root/web/library.js"
      -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB -sTOTAL_STACK=8MB)
page=(-sINVOKE_RUN=0 -sEXIT_RUNTIME=0 -sENVIRONMENT=web,worker -sMODULARIZE=1 -sEXPORT_NAME=createSpringbox
      -sEXPORTED_FUNCTIONS=_main,_window_web_open,_window_web_reload,_window_web_running,_window_web_key,_window_web_view,_window_web_resize,_window_web_view_state -sEXPORTED_RUNTIME_METHODS=FS,callMain,ccall
      --embed-file "$root/scripts@/scripts" --exclude-file '*.png' --embed-file "$font@$font")
# Threads: the page's workers are started with it, as many as it asks for (page.js); a world that
# asks for more than are free gets none and runs on the caller alone (pthread_create says EAGAIN
# rather than waiting for a worker the page's event loop would have to start).
threads=(-pthread -sPTHREAD_POOL_SIZE_STRICT=2 -Wno-pthreads-mem-growth)
# the page where the browser allows threads (a cross-origin-isolated page: page.js, isolate.js)
par emcc -O2 "${objs[@]}" "${libs[@]}" "${page[@]}" "${threads[@]}" -sPTHREAD_POOL_SIZE='Module.workers' \
  -o "$out/springbox.js"
# the page where it does not: one thread, from the same objects
par emcc -O2 "${objs[@]}" "${libs[@]}" "${page[@]}" -o "$out/springbox-1.js"
# the same objects as a headless runner for node, for the tests' comparisons with the native build:
# workers for one world of as many threads as the machine has
par emcc -O2 "${objs[@]}" "${libs[@]}" "${threads[@]}" -sPTHREAD_POOL_SIZE='require("os").cpus().length' \
  -sENVIRONMENT=node -sNODERAWFS=1 -sEXIT_RUNTIME=1 -o "$cache/springbox-node.js"
par_wait

# ---------------------------------------------------------------- the page
echo "== the page"
npmdir="$cache/npm"
mkdir -p "$npmdir"
if ! cmp -s "$root/web/package-lock.json" "$npmdir/package-lock.json" || [ ! -d "$npmdir/node_modules/codemirror" ]; then
  cp "$root/web/package.json" "$root/web/package-lock.json" "$npmdir/"
  (cd "$npmdir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
mkdir -p "$out/codemirror"
cm="$npmdir/node_modules/codemirror"
cp "$cm/lib/codemirror.js" "$cm/lib/codemirror.css" "$cm/mode/lua/lua.js" "$cm/LICENSE" "$out/codemirror/"
cp "$root/web/index.html" "$root/web/page.js" "$root/web/isolate.js" "$root/web/trial.js" "$root/web/springbox.css" "$out/"
# the licenses: springbox's, and what the page links and builds in (CodeMirror's beside it)
cp "$root/LICENSE" "$root/THIRD_PARTY.md" "$out/"
echo "springbox for the browser: $out/index.html (serve the folder: python3 -m http.server -d $out)"
