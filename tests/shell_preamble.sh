# The preamble the shell tests share, sourced first (the window tests get it through
# tests/xvfb_window.sh): unset variables are errors, $tmp is a scratch folder removed on exit,
# fail says why and exits 1, and need skips the test (exit 77, CTest's skip code) when a tool
# it needs is not installed.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
need() {
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
  done
}
