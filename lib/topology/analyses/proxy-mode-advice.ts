/**
 * "Should we switch proxy mode?" answered per cluster from its release, dataplane and rule counts.
 *
 * Facts used:
 * - nftables mode: alpha 1.29, beta 1.31, GA 1.33 (KEP-3866); it needs a kernel ≥ 5.13 on every
 *   node. Services are looked up in verdict maps (one lookup, not a chain walk), and changes are
 *   written incrementally.
 * - IPVS mode is deprecated from 1.35 (KEP-5495); nftables is its successor.
 * - Hints are applied before any mode programs anything: kube-proxy's endpoint selection
 *   (pkg/proxy/topology.go) is shared by iptables, IPVS and nftables, so switching mode changes
 *   nothing for Topology Aware Routing.
 * - iptables mode: the first packet of a connection walks the Service chains, and rules grow with
 *   Service ports × endpoints; the larger the table, the longer each sync
 *   (`kubeproxy_sync_proxy_rules_duration_seconds`) and the later endpoint changes reach the node.
 *
 * @see https://kubernetes.io/docs/reference/networking/virtual-ips/#proxy-mode-nftables
 * @see https://kep.k8s.io/3866
 * @see https://kep.k8s.io/5495
 */
import type { DataplaneAnalysis } from './analyze-dataplane';
import type { RuleEstimates } from './rule-estimates';
import { formatKubeMinor } from '../upstream/version';
import type { KubeMinor } from '../upstream/version';

/** Netfilter rules per node above which iptables syncs get slow enough to say so. */
export const LARGE_RULE_COUNT = 100_000;
/** Above this, worth mentioning that nftables scales better. */
export const NOTABLE_RULE_COUNT = 20_000;

/** Result of {@link adviseProxyMode}. */
export interface ProxyModeAdvice {
  /** `switch`: do it; `plan`: when the release allows; `stay`: no reason to. */
  readonly action: 'switch' | 'plan' | 'stay';
  /** One line: the answer. */
  readonly verdict: string;
  /** Why, in short lines. */
  readonly reasons: readonly string[];
  /** Very large rule counts: what they mean for sync latency and what to do; `null` below the threshold. */
  readonly ruleWarning: string | null;
  /** What to check or run, in order. */
  readonly steps: readonly string[];
}

const HINTS_SAME = 'Hints: all three modes honour them the same way (kube-proxy filters endpoints by hints before any mode programs them), so switching changes nothing for Topology Aware Routing.';
const KERNEL_CHECK = 'kubectl get nodes -o custom-columns=NAME:.metadata.name,KERNEL:.status.nodeInfo.kernelVersion';

function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** The recommendation for this cluster: switch to nftables, plan it, or stay. */
export function adviseProxyMode(dataplane: DataplaneAnalysis, rules: RuleEstimates, minor: KubeMinor): ProxyModeAdvice {
  const release = formatKubeMinor(minor);
  const iptables = rules.estimates.find((e) => e.mode === 'iptables');
  const ownRules = rules.estimates.find((e) => e.mode === (rules.currentMode ?? 'iptables'));
  const nftables = rules.estimates.find((e) => e.mode === 'nftables');
  const mode = dataplane.proxyMode;

  // 1. kube-proxy is not in the path: its mode does not matter.
  if (dataplane.serviceProxy !== 'kube-proxy') {
    const who = dataplane.serviceProxy === 'cilium' ? "Cilium's kube-proxy replacement" : "Calico's eBPF dataplane";
    return {
      action: 'stay',
      verdict: `No switch: ${who} implements Services, so kube-proxy's mode does not apply.`,
      reasons: [dataplane.honoursHintsReason],
      ruleWarning: null,
      steps: [],
    };
  }

  // 2. Very large iptables tables: sync latency.
  const big = (mode === 'iptables' || mode === 'unknown') && iptables !== undefined && iptables.netfilterRules >= LARGE_RULE_COUNT;
  const ruleWarning = big
    ? `${count(iptables.netfilterRules)} iptables rules per node: each kube-proxy sync rewrites rules in proportion to that, which can take seconds (watch kubeproxy_sync_proxy_rules_duration_seconds), so endpoint changes — pods coming and going, hints moving — reach nodes late, and new connections walk long chains. ` +
      (minor >= 33
        ? `Switch to nftables${nftables ? ` (${count(nftables.netfilterRules)} rules, looked up in maps and updated incrementally)` : ''}; until then raise iptables.minSyncPeriod to batch changes.`
        : `nftables is GA from 1.33; until you can upgrade, raise iptables.minSyncPeriod to batch changes. IPVS also has far fewer rules, but it is deprecated from 1.35, so a move to it is a move twice.`)
    : null;

  const reasons: string[] = [HINTS_SAME];
  if (ownRules && mode !== 'unknown') reasons.push(`${mode} now: ${count(ownRules.netfilterRules)} netfilter rules per node (estimate).`);
  const where =
    dataplane.platform.platform === 'eks'
      ? "the kube-proxy add-on's configuration values (aws eks update-addon … --configuration-values), where your add-on version supports it"
      : dataplane.platform.platform === 'aks'
        ? "the AKS cluster's kube-proxy configuration"
        : 'the kube-proxy configuration';
  const switchSteps = [`Check every node's kernel (nftables needs ≥ 5.13): ${KERNEL_CHECK}`, `Set mode: nftables in ${where}, then restart kube-proxy one node pool at a time.`];

  // 3. IPVS.
  if (mode === 'ipvs') {
    if (minor >= 35) {
      return { action: 'switch', verdict: `Switch to nftables: IPVS mode is deprecated from 1.35 (this cluster runs ${release}).`, reasons, ruleWarning, steps: switchSteps };
    }
    if (minor >= 33) {
      return { action: 'plan', verdict: `Plan the move to nftables: it is GA on ${release}, and IPVS mode is deprecated from 1.35.`, reasons, ruleWarning, steps: switchSteps };
    }
    return { action: 'stay', verdict: `Stay on IPVS for now: nftables is GA from 1.33 (this cluster runs ${release}); IPVS is deprecated from 1.35.`, reasons, ruleWarning, steps: [] };
  }

  // 4. nftables already.
  if (mode === 'nftables') {
    return { action: 'stay', verdict: minor >= 33 ? 'Stay on nftables.' : `Stay on nftables, but note it is ${minor >= 31 ? 'beta' : 'alpha'} on ${release} (GA in 1.33).`, reasons, ruleWarning, steps: [] };
  }

  // 5. GKE picks kube-proxy's mode itself.
  if (dataplane.platform.platform === 'gke') {
    return {
      action: 'stay',
      verdict: 'No switch to make: GKE runs kube-proxy in iptables mode and does not offer another; its alternative is Dataplane V2 (Cilium), chosen when a cluster is created.',
      reasons,
      ruleWarning,
      steps: [],
    };
  }

  // 6. iptables (or the default, unknown).
  if (iptables && iptables.netfilterRules >= NOTABLE_RULE_COUNT) {
    reasons.push(`iptables grows with Service ports × endpoints: ${count(iptables.netfilterRules)} rules here${nftables ? `, ${count(nftables.netfilterRules)} in nftables` : ''}.`);
  }
  if (big && minor >= 33) return { action: 'switch', verdict: `Switch to nftables: this cluster's iptables rule count slows every kube-proxy sync.`, reasons, ruleWarning, steps: switchSteps };
  if (minor >= 33) {
    return {
      action: iptables && iptables.netfilterRules >= NOTABLE_RULE_COUNT ? 'plan' : 'stay',
      verdict:
        iptables && iptables.netfilterRules >= NOTABLE_RULE_COUNT
          ? `Plan nftables: GA on ${release}, and this cluster's iptables rules are many.`
          : `No need to switch: iptables is fine at this size; nftables (GA on ${release}) is the better default for new clusters.`,
      reasons,
      ruleWarning,
      steps: iptables && iptables.netfilterRules >= NOTABLE_RULE_COUNT ? switchSteps : [],
    };
  }
  return {
    action: 'stay',
    verdict: `Stay on iptables until 1.33, where nftables is GA (this cluster runs ${release}${minor >= 31 ? '; nftables is beta here' : ''}).`,
    reasons,
    ruleWarning,
    steps: [],
  };
}
