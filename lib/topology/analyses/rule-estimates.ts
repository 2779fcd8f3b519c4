/**
 * Estimated kernel state kube-proxy programs **on every node** for this cluster's Services, in
 * each of its Linux modes. The point is the shape — what grows with Services, endpoints and ports
 * in each mode — not an exact count; every constant below is an approximation read from the
 * proxiers and is documented where it is used.
 *
 * Counting model (per node; `P` = Service ports, `E` = endpoints the node programs for that port —
 * fewer than all when topology hints narrow the set, `N` = ports with a NodePort, `X` = load-balancer
 * ingress IPs plus external IPs):
 *
 * **iptables** (nat + filter tables, `pkg/proxy/iptables/proxier.go`):
 * - fixed: ≈ {@link IPTABLES_FIXED} rules in ≈ 12 chains (KUBE-SERVICES, KUBE-NODEPORTS,
 *   KUBE-POSTROUTING, KUBE-MARK-MASQ, KUBE-FORWARD, KUBE-PROXY-FIREWALL and the jumps to them);
 * - per port with endpoints: 1 KUBE-SERVICES rule for the ClusterIP plus `X` for external
 *   addresses; a KUBE-SVC chain with 1 masquerade rule and `E` probability rules; `E` KUBE-SEP
 *   chains with 2 rules each (hairpin masquerade + DNAT); with `N` or `X`, a KUBE-EXT chain of 2
 *   rules (3 and an extra KUBE-SVL chain under `externalTrafficPolicy: Local`) and `N` KUBE-NODEPORTS rules;
 * - per port without endpoints: REJECT rules in the filter table (1 + `N` + `X`).
 * The first packet of each connection walks KUBE-SERVICES linearly, so cost grows with Services.
 *
 * **IPVS** (`pkg/proxy/ipvs/proxier.go`, `ipset.go`):
 * - iptables: ≈ {@link IPVS_IPTABLES_FIXED} rules whatever the number of Services (they match ipsets);
 * - ipset entries: KUBE-CLUSTER-IP `P`, KUBE-LOOP-BACK `P·E`, KUBE-NODE-PORT-* `N`,
 *   KUBE-LOAD-BALANCER / KUBE-EXTERNAL-IP `P·X`, doubled into the *-LOCAL sets under eTP Local;
 * - IPVS virtual servers: `P` + `N` × node addresses ({@link IPVS_NODE_ADDRESSES}) + `P·X`, each
 *   with `E` real servers; one kube-ipvs0 address per Service IP.
 *
 * **nftables** (`pkg/proxy/nftables/proxier.go`, KEP-3866):
 * - fixed: ≈ {@link NFTABLES_FIXED} rules in ≈ 15 base chains;
 * - map elements: service-ips `P·(1+X)`, service-nodeports `N`, cluster-ips 1 per Service, the
 *   no-endpoint maps for ports without endpoints, and one `numgen` verdict-map element per endpoint;
 * - per port with endpoints: a service chain of 2 rules (masquerade + `numgen random mod E vmap`),
 *   `E` endpoint chains of 2 rules, and an external chain of 3 rules with `N` or `X`.
 * Dispatch is a map lookup, so per-packet cost does not grow with Services.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/iptables/proxier.go
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/ipvs/proxier.go
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/nftables/proxier.go
 * @see https://kubernetes.io/docs/reference/networking/virtual-ips/
 * @see https://kubernetes.io/blog/2025/02/28/nftables-kube-proxy/
 */
import type { ProxyMode } from '../model/cluster-model';

/** Approximate rules kube-proxy's iptables mode writes whatever the Services. */
export const IPTABLES_FIXED = { rules: 20, chains: 12 } as const;
/** Approximate iptables rules in IPVS mode (ipset matches, masquerade, firewall): constant. */
export const IPVS_IPTABLES_FIXED = { rules: 40, chains: 14 } as const;
/** Node addresses IPVS binds each NodePort to (the primary node IP; more with extra ENIs). */
export const IPVS_NODE_ADDRESSES = 1;
/** Approximate nftables rules and base chains whatever the Services. */
export const NFTABLES_FIXED = { rules: 30, chains: 15 } as const;

/** What the estimate needs to know about one Service. */
export interface RuleEstimateService {
  /** Service ports. */
  readonly ports: number;
  /** Ports with a NodePort. */
  readonly nodePorts: number;
  /** Load-balancer ingress IPs plus external IPs. */
  readonly externalAddresses: number;
  readonly externalTrafficPolicyLocal: boolean;
  /** Endpoints kube-proxy counts as usable (ready or serving-terminating). */
  readonly endpoints: number;
  /** Endpoints an average node programs (equals `endpoints` without topology hints). */
  readonly endpointsPerNode: number;
}

/** One line of an estimate's breakdown. */
export interface RuleEstimateLine {
  readonly item: string;
  readonly count: number;
  readonly formula: string;
}

/** Estimated per-node state in one mode. */
export interface RuleEstimate {
  readonly mode: 'iptables' | 'ipvs' | 'nftables';
  /** Netfilter rules (iptables rules, or nftables rules). */
  readonly netfilterRules: number;
  readonly chains: number;
  /** ipset entries (IPVS) or nftables set/map elements. */
  readonly setElements: number;
  readonly ipvsVirtualServers: number;
  readonly ipvsRealServers: number;
  /** How the first packet of a connection finds its Service. */
  readonly lookup: string;
  readonly breakdown: readonly RuleEstimateLine[];
}

/** Result of {@link estimateRules}. */
export interface RuleEstimates {
  /** Totals of the inputs. */
  readonly inputs: {
    readonly services: number;
    readonly servicePorts: number;
    readonly endpoints: number;
    readonly endpointsPerNode: number;
    readonly nodePorts: number;
    readonly externalAddresses: number;
    readonly portsWithoutEndpoints: number;
    readonly nodes: number;
  };
  /** The cluster's own mode, when it is one of the three. */
  readonly currentMode: 'iptables' | 'ipvs' | 'nftables' | null;
  /** iptables, IPVS and nftables, in that order; all figures are per node. */
  readonly estimates: readonly RuleEstimate[];
  readonly notes: readonly string[];
}

/**
 * Estimates per-node rules, chains, set elements and IPVS servers for the given Services in
 * iptables, IPVS and nftables mode, with the counting model in this file's header.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/iptables/proxier.go
 */
export function estimateRules(services: readonly RuleEstimateService[], nodes: number, mode: ProxyMode): RuleEstimates {
  // 1. Aggregate the terms each formula uses.
  let P = 0; // ports with endpoints
  let P0 = 0; // ports without endpoints
  let PE = 0; // Σ ports × endpoints per node
  let PEall = 0;
  let PX = 0; // Σ ports × external addresses (ports with endpoints)
  let PX0 = 0;
  let N = 0;
  let N0 = 0;
  let extChains = 0;
  let localExt = 0;
  let localPE = 0;
  let serviceIps = 0;
  let realServers = 0;
  // Indexed: this runs once a pass over ~10,000 Services, mostly before the JIT has optimised it,
  // and a for…of made an iterator result for each.
  for (let i = 0; i < services.length; i++) {
    const svc = services[i] as RuleEstimateService;
    const X = svc.externalAddresses;
    serviceIps += 1 + X;
    if (svc.endpoints === 0) {
      P0 += svc.ports;
      PX0 += svc.ports * X;
      N0 += svc.nodePorts;
      continue;
    }
    P += svc.ports;
    PE += svc.ports * svc.endpointsPerNode;
    PEall += svc.ports * svc.endpoints;
    PX += svc.ports * X;
    N += svc.nodePorts;
    realServers += (svc.ports + svc.nodePorts * IPVS_NODE_ADDRESSES + svc.ports * X) * svc.endpointsPerNode;
    const external = svc.nodePorts > 0 || X > 0 ? svc.ports : 0;
    extChains += external;
    if (svc.externalTrafficPolicyLocal) {
      localExt += external;
      localPE += svc.nodePorts + svc.ports * X;
    }
  }
  const totalPorts = P + P0;

  // 2. iptables.
  const iptablesLines: RuleEstimateLine[] = [
    { item: 'fixed chains and jumps', count: IPTABLES_FIXED.rules, formula: `≈ ${IPTABLES_FIXED.rules}` },
    { item: 'KUBE-SERVICES entries', count: P + PX, formula: 'ports + ports × external addresses' },
    { item: 'KUBE-SVC rules', count: P + PE, formula: 'ports × (1 masquerade + endpoints per node)' },
    { item: 'KUBE-SEP rules', count: 2 * PE, formula: '2 × ports × endpoints per node' },
    { item: 'KUBE-EXT / KUBE-NODEPORTS rules', count: 2 * extChains + localExt + N, formula: '2 per externally reachable port (3 with eTP Local) + 1 per NodePort' },
    { item: 'REJECT rules for ports without endpoints', count: P0 + N0 + PX0, formula: 'ports + NodePorts + external addresses, without endpoints' },
  ];
  const iptables: RuleEstimate = {
    mode: 'iptables',
    netfilterRules: sum(iptablesLines),
    chains: IPTABLES_FIXED.chains + P + PE + extChains + localExt,
    setElements: 0,
    ipvsVirtualServers: 0,
    ipvsRealServers: 0,
    lookup: `linear: a new connection walks up to ${P + PX + P0 + PX0} KUBE-SERVICES entries`,
    breakdown: iptablesLines,
  };

  // 3. IPVS.
  const virtualServers = totalPorts + (N + N0) * IPVS_NODE_ADDRESSES + PX + PX0;
  const ipsetLines: RuleEstimateLine[] = [
    { item: 'KUBE-CLUSTER-IP', count: totalPorts, formula: '1 per ClusterIP:port' },
    { item: 'KUBE-LOOP-BACK', count: PE, formula: 'ports × endpoints per node (hairpin)' },
    { item: 'KUBE-NODE-PORT-*', count: N + N0, formula: '1 per NodePort' },
    { item: 'KUBE-LOAD-BALANCER / KUBE-EXTERNAL-IP', count: PX + PX0, formula: 'ports × external addresses' },
    { item: '*-LOCAL sets (eTP Local)', count: localPE, formula: 'NodePorts and external entries of eTP Local Services' },
  ];
  const ipvs: RuleEstimate = {
    mode: 'ipvs',
    netfilterRules: IPVS_IPTABLES_FIXED.rules,
    chains: IPVS_IPTABLES_FIXED.chains,
    setElements: sum(ipsetLines),
    ipvsVirtualServers: virtualServers,
    ipvsRealServers: Math.round(realServers),
    lookup: 'hash: ipset match plus IPVS virtual-server hash table',
    breakdown: [
      { item: 'iptables rules (constant)', count: IPVS_IPTABLES_FIXED.rules, formula: `≈ ${IPVS_IPTABLES_FIXED.rules}` },
      ...ipsetLines,
      { item: 'IPVS virtual servers', count: virtualServers, formula: `ports + NodePorts × ${IPVS_NODE_ADDRESSES} node address + ports × external addresses` },
      { item: 'IPVS real servers', count: Math.round(realServers), formula: 'virtual servers × endpoints per node' },
      { item: 'kube-ipvs0 addresses', count: serviceIps, formula: '1 per Service IP (ClusterIP, LB and external IPs)' },
    ],
  };

  // 4. nftables.
  const nftLines: RuleEstimateLine[] = [
    { item: 'fixed base chains', count: NFTABLES_FIXED.rules, formula: `≈ ${NFTABLES_FIXED.rules}` },
    { item: 'service chains', count: 2 * P, formula: '2 per port with endpoints (masquerade + numgen vmap)' },
    { item: 'endpoint chains', count: 2 * PE, formula: '2 × ports × endpoints per node' },
    { item: 'external chains', count: 3 * extChains, formula: '3 per externally reachable port' },
  ];
  const nftElements = totalPorts + PX + PX0 + N + N0 + services.length + PE + (P0 + PX0 + N0);
  const nftables: RuleEstimate = {
    mode: 'nftables',
    netfilterRules: sum(nftLines),
    chains: NFTABLES_FIXED.chains + P + PE + extChains,
    setElements: nftElements,
    ipvsVirtualServers: 0,
    ipvsRealServers: 0,
    lookup: 'map: one verdict-map lookup whatever the number of Services',
    breakdown: [
      ...nftLines,
      { item: 'set and map elements', count: nftElements, formula: 'service-ips + service-nodeports + cluster-ips + numgen elements + no-endpoint maps' },
    ],
  };

  // One indexed loop for the three sums (each added in the Services' order, as a reduce would):
  // this runs once a pass over ~10,000 Services, and callbacks made per call are compiled again each pass.
  let endpointsPerNode = 0;
  let endpoints = 0;
  let externalAddresses = 0;
  for (let i = 0; i < services.length; i++) {
    const svc = services[i] as RuleEstimateService;
    endpointsPerNode += svc.endpointsPerNode;
    endpoints += svc.endpoints;
    externalAddresses += svc.externalAddresses;
  }
  const notes = [
    'Figures are per node: every node programs every Service. They are estimates from the proxiers\' structure, not counts read from a node.',
    'Check a node with: sudo iptables-save | wc -l (iptables), sudo ipvsadm -Ln | wc -l and sudo ipset list | wc -l (IPVS), sudo nft list table ip kube-proxy | wc -l (nftables).',
  ];
  if (PEall > PE) notes.push(`Topology hints cut the endpoints each node programs from ${PEall} to about ${Math.round(PE)} port-endpoint pairs.`);
  return {
    inputs: {
      services: services.length,
      servicePorts: totalPorts,
      endpoints,
      endpointsPerNode: Math.round(endpointsPerNode * 100) / 100,
      nodePorts: N + N0,
      externalAddresses,
      portsWithoutEndpoints: P0,
      nodes,
    },
    currentMode: mode === 'iptables' || mode === 'ipvs' || mode === 'nftables' ? mode : null,
    estimates: [roundEstimate(iptables), roundEstimate(ipvs), roundEstimate(nftables)],
    notes,
  };
}

function sum(lines: readonly RuleEstimateLine[]): number {
  return lines.reduce((s, line) => s + line.count, 0);
}

function roundEstimate(estimate: RuleEstimate): RuleEstimate {
  return {
    ...estimate,
    netfilterRules: Math.round(estimate.netfilterRules),
    chains: Math.round(estimate.chains),
    setElements: Math.round(estimate.setElements),
    breakdown: estimate.breakdown.map((line) => ({ ...line, count: Math.round(line.count) })),
  };
}
