# The harness of the window tests, sourced by them: Xvfb on a free display, the app's --stats
# read back line by line, and waiting for what a person would see. Before sourcing, set `tools`
# (the programs the test needs) and `displays` (the display numbers it may take); after, start
# the app with start_app TITLE SCENE and use last, field, wait_for and fail.
. "$(dirname "${BASH_SOURCE[0]}")/shell_preamble.sh"
need Xvfb xdotool $tools
display=""
cleanup() { [ -n "${app:-}" ] && kill "$app" 2>/dev/null; [ -n "${xvfb:-}" ] && kill "$xvfb" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- last stats:"; tail -n 2 "$tmp/s.jsonl" 2>/dev/null | cut -c1-600; cat "$tmp/out" 2>/dev/null; exit 1; }

# A free display number, and a server that answers before the app starts. -noreset: Xvfb resets
# itself whenever its last client leaves, so each xdotool call that ended alone reset it, and an
# app connecting during a reset found no display (seen under load as "no window appeared"; SDL
# then fell back to a driver without windows, which the app now refuses: "cannot open a display").
for n in $displays; do
  [ -e /tmp/.X$n-lock ] && continue
  Xvfb :$n -screen 0 1280x800x24 -nolisten tcp -noreset >/dev/null 2>&1 &
  xvfb=$!
  for _ in $(seq 1 100); do
    DISPLAY=:$n xdotool getdisplaygeometry >/dev/null 2>&1 && { display=:$n; break; }
    kill -0 $xvfb 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$display" ] && break
  kill $xvfb 2>/dev/null
done
[ -n "$display" ] || fail "could not start Xvfb"
export DISPLAY=$display

last() { tail -n 1 "$tmp/s.jsonl" 2>/dev/null; }
field() { last | sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p"; }
wait_for() { # description, shell test evaluated until true, within 30 s (a busy machine draws slowly)
  for _ in $(seq 1 300); do eval "$2" && return 0; sleep 0.1; done
  fail "$1"
}
# run_frames N: waits until the window has stepped N more frames (a busy machine steps fewer a
# second: a measurement waits for the motion it reads, not for the clock)
run_frames() {
  local from
  from=$(field frame)
  wait_for "the window steps $1 frames from frame $from" "[ \"\$(field frame)\" -ge $((from + $1)) ]"
}

# start_app TITLE SCENE [OPTIONS]: the app at 1000 x 700 with the camera on (0, 0) at 100 px/m (world (0, 0)
# is pixel (370, 350)), writing --stats; sets app and wid once its window is up and focused.
start_app() {
  # shellcheck disable=SC2086 # $3: more options, split into words
  "$bin" --window 1000x700 --view 0,0,100 --stats "$tmp/s.jsonl" ${3:-} "$2" >"$tmp/out" 2>&1 &
  app=$!
  wid=""
  # by title, or by process
  for _ in $(seq 1 200); do
    # only a mapped window: SDL may make one before the one it shows (a request to an unmapped
    # or gone window fails with BadWindow, seen once under load)
    wid=$(xdotool search --onlyvisible --name "$1" 2>/dev/null | head -n 1)
    [ -n "$wid" ] || wid=$(xdotool search --onlyvisible --pid "$app" 2>/dev/null | tail -n 1)
    [ -n "$wid" ] && xdotool getwindowgeometry "$wid" >/dev/null 2>&1 && break
    wid=""
    sleep 0.1
  done
  if [ -z "$wid" ]; then
    echo "--- debug: display $DISPLAY, windows: $(xdotool search --name . 2>&1 | head -5 | tr '\n' ' ')"
    for w in $(xdotool search --name . 2>/dev/null); do echo "  $w: $(xdotool getwindowname $w 2>&1)"; done
    fail "no window appeared"
  fi
  xdotool windowfocus "$wid"
  wait_for "the app writes stats" '[ -s "$tmp/s.jsonl" ]'
}

# quit: Q ends the app cleanly.
quit_app() {
  xdotool key q
  for _ in $(seq 1 50); do kill -0 $app 2>/dev/null || break; sleep 0.1; done
  kill -0 $app 2>/dev/null && fail "Q did not quit"
  wait $app || fail "the app exited with $?"
  app=""
  echo "ok   Q quits cleanly"
}
