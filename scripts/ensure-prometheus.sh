#!/usr/bin/env bash
# The suite runs promtool, a real Prometheus, and Compose v1 on the compose file (`docker-compose config`, no
# engine needed): install Debian's packages when we can, else say exactly what is missing.
set -euo pipefail
missing=()
command -v promtool >/dev/null 2>&1 && command -v prometheus >/dev/null 2>&1 || missing+=(prometheus)
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
if [ "${#missing[@]}" = 0 ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "not found: installing Debian's ${missing[*]} package(s)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "The test suite needs promtool and prometheus (Debian: apt-get install prometheus) and docker-compose" >&2
echo "(Debian: apt-get install docker-compose) on PATH; missing: ${missing[*]}." >&2
exit 1
