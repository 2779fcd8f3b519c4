/**
 * Zones and nodes as the EndpointSlice controller's topology cache sees them: which nodes count,
 * which are skipped and why, the CPU ratio per zone, and — when the cluster is not eligible for
 * topology hints at all — the node(s) responsible and the command that fixes each.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go (SetNodes)
 * @see https://kubernetes.io/docs/concepts/services-networking/topology-aware-routing/#safeguards
 */
import type { NodeRecord } from '../model/cluster-model';
import { flatString } from '../model/flat-string';
import { LABEL_TOPOLOGY_ZONE, MESSAGE_INSUFFICIENT_NODE_INFO } from '../upstream/constants';
import { quantityToMilli } from '../upstream/quantity';
import type { InsufficientNodeInfoCause, NodeTopology, NodeTopologyStatus } from '../upstream/topology-cache';
import { classifyNode, hasExcludedLabels, setNodes } from '../upstream/topology-cache';
import type { TopologyNode, ValueByZone } from '../upstream/types';
import type { KubeMinor } from '../upstream/version';

/** One zone of the cluster. */
export interface ZoneReport {
  readonly name: string;
  /** Nodes carrying this zone label (all of them). */
  readonly nodes: number;
  /** Nodes with `Ready=True`. */
  readonly readyNodes: number;
  /** Nodes whose CPU the topology cache counts (ready, not control-plane, with CPU). */
  readonly countedNodes: number;
  /** Allocatable milli-CPU of the counted nodes. */
  readonly cpuMillis: number;
  /** The topology cache's ratio for the zone; `null` when the cluster has no ratios. */
  readonly cpuRatio: number | null;
}

/** One node on the zone map. */
export interface NodeReport {
  readonly name: string;
  /** Zone label value (`null` = absent, `""` = present but empty). */
  readonly zone: string | null;
  readonly status: NodeTopologyStatus;
  readonly ready: boolean | null;
  readonly controlPlane: boolean;
  readonly unschedulable: boolean;
  /** Allocatable CPU in millicores (`null` when absent or unparsable). */
  readonly allocatableCpuMillis: number | null;
  /** True for a ready worker without zone or CPU: it turns hints off for every Service. */
  readonly disablesHints: boolean;
  /** A skipped node that would disable hints if it became Ready (it lacks zone or CPU). */
  readonly disablesHintsWhenReady: boolean;
  /** One-line explanation of how the topology cache treats the node. */
  readonly note: string;
}

/** A node that makes the cluster ineligible, and how to fix it. */
export interface NodeFix {
  readonly node: string;
  readonly cause: 'missing-zone' | 'missing-cpu';
  readonly description: string;
  /** Zone to label the node with, guessed from `spec.providerID`; `null` when unknown. */
  readonly suggestedZone: string | null;
  readonly commands: readonly string[];
}

/** Outcome of re-running SetNodes on the fixed node list. */
export interface EligibilityVerification {
  readonly eligible: boolean;
  readonly cpuRatiosByZone: Readonly<ValueByZone<number>> | null;
  /** What was assumed to simulate the fix. */
  readonly assumption: string;
}

/** Result of {@link analyzeZones}. */
export interface ZoneAnalysis {
  readonly zones: readonly ZoneReport[];
  readonly nodes: readonly NodeReport[];
  /** Nodes the topology cache skips (control-plane, not ready), with the reason. */
  readonly excludedNodes: readonly { readonly name: string; readonly status: NodeTopologyStatus; readonly reason: string }[];
  /** Every ready worker without zone or CPU (upstream stops at the first; all must be fixed). */
  readonly ineligibleNodes: readonly NodeFix[];
  readonly eligible: boolean;
  readonly insufficientCause: InsufficientNodeInfoCause | null;
  /** The event message every `Auto` Service gets while the cluster is ineligible (without suffix). */
  readonly disabledMessage: string | null;
  readonly verdict: string;
  /** Re-run of SetNodes with every listed fix applied; `null` when already eligible. */
  readonly verification: EligibilityVerification | null;
  readonly cpuRatiosByZone: Readonly<ValueByZone<number>> | null;
  readonly totalCpuMillis: number;
  /** Lists nodes with their zone label, to check the map against the cluster. */
  readonly inspectCommand: string;
}

/**
 * The zone encoded in a node's `spec.providerID`, when the provider puts it there:
 * AWS `aws:///eu-west-1a/i-0abc`, GCE `gce://project/europe-west1-b/name`. Other providers → `null`.
 */
export function zoneFromProviderID(providerID: string | null): string | null {
  if (!providerID) return null;
  const aws = /^aws:\/\/\/([a-z0-9-]+)\/i-[0-9a-f]+$/.exec(providerID);
  if (aws?.[1]) return aws[1];
  const gce = /^gce:\/\/[^/]+\/([a-z0-9-]+)\/[^/]+$/.exec(providerID);
  if (gce?.[1]) return gce[1];
  return null;
}

function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)} %`;
}

function nodeNote(status: NodeTopologyStatus, zone: string | null, milli: number | null): string {
  switch (status) {
    case 'counted':
      return `counted: ${milli ?? 0}m CPU in ${zone ?? ''}`;
    case 'excluded-control-plane':
      return 'excluded: control-plane node (never counted, never disables hints)';
    case 'not-ready':
      return 'skipped: not Ready (not counted while not Ready)';
    case 'missing-zone':
      return `disables hints for every Service: ready worker without a ${LABEL_TOPOLOGY_ZONE} label`;
    case 'missing-cpu':
      return 'disables hints for every Service: ready worker without allocatable CPU';
  }
}

function nodeFix(node: NodeRecord, cause: 'missing-zone' | 'missing-cpu'): NodeFix {
  if (cause === 'missing-zone') {
    const suggestedZone = zoneFromProviderID(node.providerID);
    const zoneText = suggestedZone ?? '<zone>';
    return {
      node: node.name,
      cause,
      description:
        `Node ${node.name} is Ready but has no ${LABEL_TOPOLOGY_ZONE} label, so the controller cannot compute CPU ratios. ` +
        (suggestedZone
          ? `Its providerID places it in ${suggestedZone}.`
          : 'Label it with the zone it runs in (cloud providers normally set this label; a missing label points at a node registered without the cloud controller).'),
      suggestedZone,
      commands: [`kubectl label node ${node.name} ${LABEL_TOPOLOGY_ZONE}=${zoneText}`],
    };
  }
  return {
    node: node.name,
    cause,
    description:
      `Node ${node.name} is Ready but reports no allocatable CPU (status.allocatable.cpu is missing or 0). ` +
      'Fix the kubelet reservations (--kube-reserved / --system-reserved) or remove the node.',
    suggestedZone: null,
    commands: [
      `kubectl get node ${node.name} -o jsonpath='{.status.allocatable.cpu}'`,
      `kubectl drain ${node.name} --ignore-daemonsets --delete-emptydir-data && kubectl delete node ${node.name}`,
    ],
  };
}

/**
 * Per-zone and per-node view of the topology cache for release `minor`: node counts, counted CPU,
 * CPU ratios, skipped nodes with reasons, and the eligibility verdict. When ready workers lack a
 * zone label or CPU, every one of them is listed with its fix, and the fix is verified by running
 * SetNodes again with the nodes labelled (with the providerID zone, else the first zone by name)
 * and the CPU-less nodes removed.
 *
 * @param precomputed SetNodes result for the same nodes and release, to avoid recomputing it.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go (SetNodes)
 */
export function analyzeZones(nodes: readonly NodeRecord[], minor: KubeMinor, precomputed?: NodeTopology): ZoneAnalysis {
  const topologyNodes: TopologyNode[] = nodes.map((node) => ({ name: node.name, zone: node.zone, allocatableCpu: node.allocatableCpu, ready: node.ready, labels: node.labels }));
  const topology = precomputed ?? setNodes(topologyNodes, minor);

  // 1. Classify every node and tally zones.
  const byZone = new Map<string, { nodes: number; readyNodes: number; countedNodes: number; cpuMillis: number }>();
  const nodeReports: NodeReport[] = [];
  const excludedNodes: { name: string; status: NodeTopologyStatus; reason: string }[] = [];
  const ineligibleNodes: NodeFix[] = [];
  let totalCpuMillis = 0;
  nodes.forEach((node, i) => {
    const topologyNode = topologyNodes[i] as TopologyNode;
    const status = classifyNode(topologyNode, minor);
    const milli = node.allocatableCpu === null ? null : quantityToMilli(node.allocatableCpu);
    const zone = node.zone === '' ? null : node.zone;
    if (zone !== null) {
      const tally = byZone.get(zone) ?? { nodes: 0, readyNodes: 0, countedNodes: 0, cpuMillis: 0 };
      tally.nodes++;
      if (node.ready === true) tally.readyNodes++;
      if (status === 'counted') {
        tally.countedNodes++;
        tally.cpuMillis += milli ?? 0;
        totalCpuMillis += milli ?? 0;
      }
      byZone.set(zone, tally);
    }
    const lacksZoneOrCpu = node.zone === null || node.zone === '' || milli === null || milli === 0;
    // One per node, kept with the analysis: laid out in one piece (model/flat-string.ts).
    const note = flatString(nodeNote(status, zone, milli));
    nodeReports.push({
      name: node.name,
      zone: node.zone,
      status,
      ready: node.ready,
      controlPlane: hasExcludedLabels(node.labels),
      unschedulable: node.unschedulable,
      allocatableCpuMillis: milli,
      disablesHints: status === 'missing-zone' || status === 'missing-cpu',
      disablesHintsWhenReady: status === 'not-ready' && lacksZoneOrCpu && !(minor >= 23 && hasExcludedLabels(node.labels)),
      note,
    });
    if (status === 'excluded-control-plane' || status === 'not-ready') excludedNodes.push({ name: node.name, status, reason: note });
    if (status === 'missing-zone' || status === 'missing-cpu') ineligibleNodes.push(nodeFix(node, status));
  });

  // 2. Zones, sorted, with the cache's ratios.
  const ratios = topology.cpuRatiosByZone;
  const zones: ZoneReport[] = [...byZone.keys()].sort().map((name) => {
    const tally = byZone.get(name) ?? { nodes: 0, readyNodes: 0, countedNodes: 0, cpuMillis: 0 };
    return { name, ...tally, cpuMillis: topology.cpuMilliByZone?.[name] ?? tally.cpuMillis, cpuRatio: ratios ? (ratios[name] ?? null) : null };
  });

  // 3. Verdict and, when ineligible, a verified fix.
  const eligible = topology.sufficientNodeInfo;
  let verdict: string;
  let verification: EligibilityVerification | null = null;
  const zoneNames = zones.map((zone) => zone.name);
  switch (topology.insufficientCause) {
    case null:
      verdict = `Eligible: ${zones.filter((z) => z.cpuRatio !== null).length} zones with CPU ratios ${zones
        .filter((z) => z.cpuRatio !== null)
        .map((z) => `${z.name} ${percent(z.cpuRatio ?? 0)}`)
        .join(', ')}.`;
      break;
    case 'node-missing-zone':
    case 'node-missing-cpu': {
      const names = ineligibleNodes.map((fix) => fix.node);
      verdict =
        `Not eligible: ${names.length === 1 ? `node ${names[0]} is Ready but lacks` : `nodes ${names.join(', ')} are Ready but lack`} a zone label or allocatable CPU, ` +
        'so the EndpointSlice controller has no CPU ratios and turns topology hints off for every Service.';
      const fallbackZone = zoneNames[0] ?? 'zone-a';
      const fixed = topologyNodes
        .filter((node) => ineligibleNodes.every((fix) => fix.node !== node.name || fix.cause !== 'missing-cpu'))
        .map((node) => {
          const fix = ineligibleNodes.find((f) => f.node === node.name);
          return fix ? { ...node, zone: fix.suggestedZone ?? fallbackZone } : node;
        });
      const after = setNodes(fixed, minor);
      verification = {
        eligible: after.sufficientNodeInfo,
        cpuRatiosByZone: after.cpuRatiosByZone,
        assumption: `zone-less nodes labelled (providerID zone, else ${fallbackZone}); CPU-less nodes removed`,
      };
      break;
    }
    case 'single-zone': {
      verdict = `Not eligible: every counted node is in one zone (${zoneNames.filter((z) => (byZone.get(z)?.countedNodes ?? 0) > 0).join(', ')}); topology hints need at least two zones.`;
      const template = topologyNodes.find((node) => classifyNode(node, minor) === 'counted');
      if (template) {
        const after = setNodes([...topologyNodes, { ...template, name: 'new-node', zone: 'another-zone' }], minor);
        verification = { eligible: after.sufficientNodeInfo, cpuRatiosByZone: after.cpuRatiosByZone, assumption: `one node like ${template.name} added in a second zone` };
      }
      break;
    }
    case 'no-counted-nodes':
      verdict = 'Not eligible: no Ready worker node with allocatable CPU, so there are no CPU ratios.';
      break;
  }
  return {
    zones,
    nodes: nodeReports,
    excludedNodes,
    ineligibleNodes,
    eligible,
    insufficientCause: topology.insufficientCause,
    disabledMessage: eligible ? null : MESSAGE_INSUFFICIENT_NODE_INFO,
    verdict,
    verification,
    cpuRatiosByZone: ratios,
    totalCpuMillis,
    inspectCommand: `kubectl get nodes -L ${LABEL_TOPOLOGY_ZONE}`,
  };
}
