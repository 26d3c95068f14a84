#!/usr/bin/env bash
# The suite runs promtool and a real Prometheus: install Debian's package when we can, else say exactly what is missing.
set -euo pipefail
if command -v promtool >/dev/null 2>&1 && command -v prometheus >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "promtool/prometheus not found: installing Debian's prometheus package" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq prometheus >/dev/null
  exit 0
fi
echo "The test suite needs promtool and prometheus on PATH (Debian: apt-get install prometheus)." >&2
exit 1
