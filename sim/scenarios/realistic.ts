/**
 * Generator of realistic EKS cluster dumps (`generated:realistic-S|M|L`): objects shaped as
 * `kubectl get -o json` prints them on a real EKS cluster — managedFields, Helm labels and
 * annotations, `kubectl.kubernetes.io/last-applied-configuration` on kubectl-applied objects,
 * full pod specs with the fields admission adds (service-account token volume, default
 * tolerations), statuses, Nodes with EKS/Karpenter labels, taints, image lists and
 * allocatable/capacity, Deployments with their current and old ReplicaSets (pod-template-hash),
 * HPAs (autoscaling/v2), Services of every kind and the EndpointSlices the EndpointSlice
 * controller would have written for them, with topology hints computed by zonescope's engine.
 *
 * Unlike `generated:S|M|L` (equal Services in equal zones, for benchmarks), this one is built to
 * be untidy the way production is: uneven zones (3 or 4, with skewed node counts), long-tailed
 * replica counts, spread and unspread workloads, NotReady and terminating Pods, NotReady and
 * cordoned Nodes, tainted node groups, and almost every Service of a distinct shape. The dump is
 * consistent — what the cluster's controllers would leave at rest — so a simulator loading it
 * has nothing to do. Deterministic: the same parameters give the same objects.
 *
 * This file is the plan — the sizes, the steps in the order they draw from the seeded stream,
 * the order of the dump; the layouts (nodes, namespaces, workloads, pod placement) and the
 * object builders (managedFields, Helm labels and annotations, last-applied configurations,
 * statuses) are in sim/scenarios/realistic/.
 */
import type { KubeObject } from '../types';
import { ZONES } from './realistic/catalogue';
import { createDice } from './realistic/dice';
import { EndpointsIndex, endpointSlices } from './realistic/endpoint-slices';
import { createImageCatalogue } from './realistic/images';
import { kubeSystemObjects } from './realistic/kube-system';
import { layoutNamespaces, namespaceObjects } from './realistic/namespaces';
import { layoutNodes } from './realistic/node-layout';
import { nodeObject } from './realistic/node-objects';
import { Placement } from './realistic/placement';
import type { PodBuilder } from './realistic/pod-objects';
import { ServiceList, specialServices } from './realistic/service-objects';
import { layoutWorkloads } from './realistic/workload-layout';
import { workloadObjects } from './realistic/workload-objects';

/** Parameters of a realistic cluster. */
export interface RealisticParams {
  readonly nodes: number;
  /** Relative node count per zone (3 or 4 zones; skewed). */
  readonly zoneWeights: readonly number[];
  /** Services in total (selector-based, selector-less, ExternalName, `default/kubernetes`). */
  readonly services: number;
  /** Pods in total, DaemonSet pods included (approximately: terminating extras come on top). */
  readonly pods: number;
  /** Application namespaces (besides kube-system and default). */
  readonly namespaces: number;
  readonly seed: number;
}

/** The reference sizes. */
export const REALISTIC_SCALES: Readonly<Record<'S' | 'M' | 'L', RealisticParams>> = {
  S: { nodes: 50, zoneWeights: [0.5, 0.3, 0.2], services: 100, pods: 1_000, namespaces: 8, seed: 11 },
  M: { nodes: 500, zoneWeights: [0.4, 0.3, 0.2, 0.1], services: 1_000, pods: 15_000, namespaces: 30, seed: 12 },
  L: { nodes: 5_000, zoneWeights: [0.38, 0.32, 0.2, 0.1], services: 10_000, pods: 150_000, namespaces: 120, seed: 13 },
};

/** The Kubernetes version a realistic dump is served as. */
export const REALISTIC_SERVER_VERSION = 'v1.31.4-eks-2d98532';

/** Parses `S`, `M` or `L` (the part after `realistic-`); returns an error message for anything else. */
export function parseRealisticSpec(spec: string): RealisticParams | string {
  if (spec === 'S' || spec === 'M' || spec === 'L') return REALISTIC_SCALES[spec];
  return `unknown realistic size "${spec}" (expected realistic-S, realistic-M or realistic-L)`;
}

/** Generates a realistic cluster (wire form, as `kubectl get -o json` items). */
export function generateRealisticCluster(params: RealisticParams): KubeObject[] {
  const dice = createDice(params.seed);
  const objects: KubeObject[] = [];
  const zoneCount = Math.min(params.zoneWeights.length, ZONES.length);
  const zones = ZONES.slice(0, zoneCount);
  const weightSum = params.zoneWeights.slice(0, zoneCount).reduce((a, b) => a + b, 0);

  // 1. Nodes: node groups, zones assigned by largest deficit so every group is skewed alike; the
  //    images they pull.
  const nodes = layoutNodes(params, dice, zones, weightSum);
  const images = createImageCatalogue(dice);
  for (const node of nodes) objects.push(nodeObject(node, zones, dice, images));

  // 2. Namespaces: a long tail of team sizes.
  const namespaces = layoutNamespaces(params.namespaces);
  for (const namespace of namespaceObjects(namespaces.names, dice)) objects.push(namespace);

  // 3. Pods, placed as the scheduler would. 3a. kube-system: DaemonSets on every node, kube-proxy
  //    configuration.
  const placement = new Placement(params, dice, zones, weightSum, nodes);
  const pods: PodBuilder = { dice, images, placement, nodeCount: nodes.length };
  const endpoints = new EndpointsIndex();
  for (const object of kubeSystemObjects(pods, nodes, endpoints)) objects.push(object);

  // 3b. Workloads (CoreDNS first). Budget: Services minus the special ones; pods minus the
  //     DaemonSet pods.
  const { workloads, big } = layoutWorkloads(params, dice, namespaces, zoneCount, placement.total);
  const services = new ServiceList();
  const hpas: KubeObject[] = [];
  workloads.forEach((w, wi) => workloadObjects(pods, zones, { objects, services, hpas, endpoints }, w, wi, big));

  // 3c. Services without Deployments: default/kubernetes, selector-less (mirrored Endpoints), ExternalName.
  const mirrored = specialServices(dice, services, namespaces.names, params.services);

  // 4. EndpointSlices as the controller writes them, hints by the engine.
  const { slices, events } = endpointSlices(dice, objects, nodes, zones, services, endpoints, REALISTIC_SERVER_VERSION);

  return [...objects, ...services.services.map((s) => s.object), ...slices, ...mirrored, ...hpas, ...events];
}
