#!/usr/bin/env bash
# Runs README.md's Quick start as a new user types it, in this checkout: every line of the first ```sh block
# under "## Quick start", in order, through bash. The line that starts the demo runs until stopped, so it runs in
# the background until the exporter it prints answers 200 on /-/ready, then its process group gets SIGTERM (as
# Ctrl-C signals a terminal's foreground group) and must be gone within 15 s, the demo having logged its
# shutdown. CI (.ci/run) runs this in a fresh clone with nothing beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t lines < <(awk '/^## Quick start/ { q = 1 } q && /^```sh$/ { b = 1; next } b && /^```$/ { exit } b' README.md)
if [ "${#lines[@]}" = 0 ]; then
  echo "readme-quickstart: README.md has no \`\`\`sh block under '## Quick start'" >&2
  exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Polls (at most $2 times, a second apart) until "$1" succeeds.
poll() {
  local tries=$2
  until eval "$1"; do
    tries=$((tries - 1))
    if [ "$tries" -le 0 ]; then return 1; fi
    sleep 1
  done
}

ready() {
  local base
  base=$(sed -n 's/^  metrics  \(http[^ ]*\)\/metrics$/\1/p' "$log" | head -n 1)
  [ -n "$base" ] || return 1
  node -e "fetch(process.argv[1] + '/-/ready', { signal: AbortSignal.timeout(2000) }).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))" "$base"
}

for line in "${lines[@]}"; do
  echo "readme-quickstart: \$ $line" >&2
  if [[ "$line" != *"npm run demo"* ]]; then
    bash -c "$line"
    continue
  fi
  setsid bash -c "$line" >"$log" 2>&1 &
  pid=$!
  # npm ci and the build come first: up to 10 minutes on a slow machine and network.
  if ! poll 'ready || ! kill -0 "$pid" 2>/dev/null' 600 || ! kill -0 "$pid" 2>/dev/null; then
    cat "$log" >&2
    echo "readme-quickstart: the demo did not become ready" >&2
    kill -TERM -- "-$pid" 2>/dev/null || true
    exit 1
  fi
  echo "readme-quickstart: the demo is ready ($(sed -n 's/^  metrics  //p' "$log")); stopping it" >&2
  kill -TERM -- "-$pid"
  if ! poll '! kill -0 -- "-$pid" 2>/dev/null' 15; then
    cat "$log" >&2
    echo "readme-quickstart: the demo's processes were still running 15 s after SIGTERM" >&2
    kill -KILL -- "-$pid" 2>/dev/null || true
    exit 1
  fi
  wait "$pid" || true # npm reports a signalled script as a failure; the demo's own exit is checked below
  if ! grep -q '"msg":"stopped"' "$log"; then
    cat "$log" >&2
    echo "readme-quickstart: the demo did not log its shutdown" >&2
    exit 1
  fi
done
echo "readme-quickstart: every Quick start line ran" >&2
