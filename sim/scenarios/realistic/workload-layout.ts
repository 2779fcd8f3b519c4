/**
 * The realistic cluster's workloads, as a layout: how many Deployments (the Service budget minus
 * the special Services), in which namespace (the namespaces' long tail), named from the word
 * lists, Helm-managed or kubectl-applied, with long-tailed replica counts (what the small ones
 * leave of the pod budget goes to the biggest 1 %, weights 1/√k), spread over zones or not (some
 * biased to one zone), and tolerating the batch or GPU taints now and then. The first is CoreDNS.
 */
import type { RealisticParams } from '../realistic';
import type { Toleration } from './catalogue';
import { WORDS_A, WORDS_B } from './catalogue';
import type { Dice } from './dice';
import type { NamespaceLayout } from './namespaces';

/** A Deployment of the layout. */
export interface Workload {
  namespace: string;
  name: string;
  release: string;
  helm: boolean;
  replicas: number;
  spread: 'zone' | 'zone-hard' | 'none';
  zoneBias: number | null;
  tolerations: Toleration[];
  component: string;
}

/** The workloads, and the biggest of them (each gets an HPA). */
export interface WorkloadLayout {
  readonly workloads: readonly Workload[];
  readonly big: readonly Workload[];
}

/** The workloads of a cluster of `params` (`podsSoFar`: the DaemonSets' pods, already in the pod budget). */
export function layoutWorkloads(params: RealisticParams, dice: Dice, namespaces: NamespaceLayout, zoneCount: number, podsSoFar: number): WorkloadLayout {
  const { chance, int, pick, random } = dice;
  const special = 2 + Math.max(1, Math.round(params.services * 0.02)) + Math.max(1, Math.round(params.services * 0.01));
  const workloadCount = Math.max(1, params.services - special - Math.round(params.services * 0.05));
  const workloads: Workload[] = [];
  const namespaceCumulative: number[] = [];
  let acc = 0;
  for (const w of namespaces.weights) namespaceCumulative.push((acc += w / namespaces.weightSum));
  const usedNames = new Set<string>();
  for (let i = 0; i < workloadCount; i++) {
    const namespace = i === 0 ? 'kube-system' : (namespaces.names[namespaceCumulative.findIndex((c) => c >= ((i * 0.618033988749895) % 1))] ?? namespaces.names[0] ?? 'default');
    let name = i === 0 ? 'coredns' : `${pick(WORDS_A)}-${pick(WORDS_B)}`;
    for (let k = 2; usedNames.has(`${namespace}/${name}`); k++) name = `${name.replace(/-v\d+$/, '')}-v${k}`;
    usedNames.add(`${namespace}/${name}`);
    const roll = random();
    const replicas = i === 0 ? 2 : roll < 0.3 ? 1 : roll < 0.55 ? 2 : roll < 0.7 ? 3 : roll < 0.85 ? int(4, 8) : roll < 0.95 ? int(9, 24) : int(25, 60);
    const spreadRoll = random();
    workloads.push({
      namespace, name, release: chance(0.3) ? namespace : name, helm: i !== 0 && chance(0.85), replicas,
      spread: i === 0 || spreadRoll < 0.35 ? 'zone' : spreadRoll < 0.45 ? 'zone-hard' : 'none',
      zoneBias: spreadRoll >= 0.45 && chance(0.35) ? int(0, zoneCount - 1) : null,
      tolerations: i === 0 ? [{ key: 'CriticalAddonsOnly', operator: 'Exists' }] : chance(0.05) ? [{ key: 'workload', operator: 'Equal', value: 'batch', effect: 'NoSchedule' }] : chance(0.01) ? [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }] : [],
      component: pick(['api', 'worker', 'web', 'grpc', 'consumer']),
    });
  }
  // The long tail: what the small ones leave goes to the biggest 1 % (weights 1/√k).
  const budget = Math.max(workloadCount, params.pods - podsSoFar);
  const baseTotal = workloads.reduce((a, w) => a + w.replicas, 0);
  if (baseTotal > budget) for (const w of workloads) w.replicas = Math.max(1, Math.floor((w.replicas * budget) / baseTotal));
  const bigCount = Math.max(2, Math.round(workloadCount * 0.01));
  const big = workloads.slice(1).filter((_, i) => i % Math.max(1, Math.floor(workloadCount / bigCount)) === 3).slice(0, bigCount);
  const rest = budget - workloads.reduce((a, w) => a + w.replicas, 0);
  if (rest > 0 && big.length > 0) {
    const weights = big.map((_, k) => 1 / Math.sqrt(k + 1));
    const sum = weights.reduce((a, b) => a + b, 0);
    let given = 0;
    big.forEach((w, k) => {
      const extra = k === big.length - 1 ? rest - given : Math.floor((rest * (weights[k] ?? 0)) / sum);
      given += extra;
      w.replicas += extra;
      w.spread = k % 3 === 2 ? 'none' : 'zone';
      w.tolerations = [];
    });
  }
  return { workloads, big };
}
