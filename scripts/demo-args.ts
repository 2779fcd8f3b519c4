/**
 * The command line of `npm run demo` (scripts/demo.ts), read by `parseArgs` from `node:util`:
 * the simulator's and Prometheus' ports, pinned so a bookmark, a second kubeconfig or a Grafana
 * data source keeps working across restarts (default: a free loopback port each). The dashboard's
 * own port stays `PORT`. Pure, so it is unit-tested.
 */
import { parseArgs } from 'node:util';

import { checkedOptions, wholeNumber } from '../lib/shared/command-line';
import type { OptionSpecs } from '../lib/shared/command-line';

/** What the command line asks of the demo. */
export interface DemoArgs {
  /** The simulator's loopback port (0: a free one). */
  readonly simPort: number;
  /** Prometheus' loopback port (0: a free one). */
  readonly prometheusPort: number;
}

export const DEMO_USAGE = `usage: npm run demo [-- [--sim-port N] [--prometheus-port N]]

  --sim-port N           the simulated cluster's API server on 127.0.0.1:N (default: a free port);
                         its kubeconfig is .sim/demo-kubeconfig, context eks-demo
  --prometheus-port N    the demo's Prometheus on 127.0.0.1:N (default: a free port)
  -h, --help             show this help

  The dashboard listens on PORT (default 3000) and ZONESCOPE_DEMO_HOST or ZONESCOPE_HOST (default 127.0.0.1).`;

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  'sim-port': { type: 'string' },
  'prometheus-port': { type: 'string' },
} as const satisfies OptionSpecs;

/** The demo's options, `'help'`, or a message naming what is wrong. */
export function parseDemoArgs(argv: readonly string[]): DemoArgs | 'help' | string {
  const parsed = parseArgs({ args: [...argv], options: OPTIONS, strict: false, tokens: true });
  if (parsed.tokens.some((token) => token.kind === 'option' && token.name === 'help')) return 'help';
  const values = checkedOptions(argv, parsed, OPTIONS, { once: true });
  if (typeof values === 'string') return values;
  const simPort = wholeNumber('--sim-port', values['sim-port'] ?? '0', { max: 65535 });
  if (typeof simPort === 'string') return simPort;
  const prometheusPort = wholeNumber('--prometheus-port', values['prometheus-port'] ?? '0', { max: 65535 });
  if (typeof prometheusPort === 'string') return prometheusPort;
  if (simPort !== 0 && simPort === prometheusPort) return `--sim-port and --prometheus-port are both ${simPort}: give each its own port`;
  return { simPort, prometheusPort };
}
