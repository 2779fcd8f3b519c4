/**
 * The simulator of one generator's run: `sim/cli.ts` as a child process serving the generated
 * cluster (`generated:S|M|L` or `generated:realistic-S|M|L`) on a free port, with the kubeconfig
 * it writes for it, its Beyla selecting the zone attributes (so the measured flows resolve
 * zones), and the change-latency phase's own Service created on it. Timed from start until it
 * has loaded the cluster and written the kubeconfig (`simStartSeconds`).
 */
import type { Generator, Scale } from './args';
import { createChangeTarget, someNodes } from './cluster';
import { childEnv, freePort, log, ROOT } from './environment';
import type { Child } from './processes';
import { startChild } from './processes';
import { r1 } from './report';

/** A started simulator. */
export interface RunningSimulator {
  readonly child: Child;
  readonly port: number;
  readonly url: string;
  /** Its scenario (`generated:…`). */
  readonly scenario: string;
  /** Start until the cluster is loaded and the kubeconfig written (s). */
  readonly startSeconds: number;
}

/** The scenario a generator serves at a scale. */
export function scenarioOf(generator: Generator, scale: Scale): string {
  return generator === 'realistic' ? `generated:realistic-${scale}` : `generated:${scale}`;
}

/** Starts the simulator of `generator` at `scale`, writing its kubeconfig to `kubeconfig`. */
export async function startSimulator(options: { readonly generator: Generator; readonly scale: Scale; readonly kubeconfig: string }): Promise<RunningSimulator> {
  const { generator, scale, kubeconfig } = options;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const startedAt = performance.now();
  const scenario = scenarioOf(generator, scale);
  // The realistic L dump holds ~4.5 GiB in the simulator (BENCHMARKS.md, "The simulator on a realistic
  // dump"), the reference L cluster ~3.8 GiB after a full collection: both beyond or at Node's
  // default limit here (4,144 MiB), so L gets the heap `npm run sim` gives every scenario. Without it,
  // three reference L runs of 2026-12-06 lost their simulator: a list page hung up during the floor's
  // first pass, or a later request was refused. With it, the reference simulator's heap reached
  // 4,302 MiB before its first collection.
  const heap = scale === 'L' ? ['--max-old-space-size=12288'] : [];
  log(`${generator}: starting the simulator (${scenario})…`);
  // Its Beyla selects the zone attributes (docs/traffic.md), so the measured flows resolve zones.
  const child = startChild('sim', process.execPath, [...heap, '--import', 'tsx', 'sim/cli.ts', '--scenario', scenario, '--port', String(port), '--kubeconfig', kubeconfig, '--flow-zone-labels'], {
    cwd: ROOT,
    env: childEnv({}),
  });
  await child.waitForLine(/^kubeconfig: /, 10 * 60_000);
  const startSeconds = r1((performance.now() - startedAt) / 1000);
  // The change-latency phase's own Service (bench/zonescope-bench-manual), on either generator.
  await createChangeTarget(url, await someNodes(url));
  log(`simulator (${scenario}) up in ${startSeconds} s at ${url}`);
  return { child, port, url, scenario, startSeconds };
}
