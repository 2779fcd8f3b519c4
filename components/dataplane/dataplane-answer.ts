/**
 * The Dataplane page's answer, first and in plain words: who implements this cluster's Services
 * (kube-proxy in which mode, or the CNI that replaces it), whether that honours topology hints on
 * this release, and what to do — make hints work where they are ignored, then switch proxy mode
 * or not (lib/topology/analyses/proxy-mode-advice.ts). Pure.
 */
import type { DataplaneAnalysis } from '@/lib/topology/analyses/analyze-dataplane';
import type { ProxyModeAdvice } from '@/lib/topology/analyses/proxy-mode-advice';
import type { Tone } from '../ui/status';

const MODE_NAME: Record<DataplaneAnalysis['proxyMode'], string> = { iptables: 'iptables', ipvs: 'IPVS', nftables: 'nftables', kernelspace: 'kernelspace', unknown: 'unknown' };

/** The answer: what runs and whether it honours hints, then what to do; and the tone of its box. */
export interface DataplaneAnswer {
  /** `kube-proxy in iptables mode implements this cluster's Services and honours topology hints on Kubernetes 1.33.` */
  readonly state: string;
  /** What to do: turn hints on where they are ignored, then the proxy-mode verdict. */
  readonly action: string;
  readonly tone: Tone;
}

function who(d: DataplaneAnalysis): string {
  switch (d.serviceProxy) {
    case 'cilium':
      return "Cilium's kube-proxy replacement";
    case 'calico-ebpf':
      return "Calico's eBPF dataplane";
    default:
      return d.proxyMode === 'unknown' ? 'kube-proxy (its mode is unknown: no kube-proxy configuration was read)' : `kube-proxy in ${MODE_NAME[d.proxyMode]} mode`;
  }
}

/** What makes hints work where the dataplane ignores them, as the first thing to do; `''` where they work. */
function hintsFix(d: DataplaneAnalysis): string {
  if (d.honoursHints) return '';
  if (d.serviceProxy === 'cilium') return 'Turn on enable-service-topology (Helm loadBalancer.serviceTopology=true) in cilium-config, or no annotation has any effect. ';
  return 'Enable the TopologyAwareHints feature gate on kube-controller-manager and kube-proxy, or no annotation has any effect. ';
}

export function dataplaneAnswer(d: DataplaneAnalysis, advice: ProxyModeAdvice): DataplaneAnswer {
  const why = d.honoursHints ? '' : d.serviceProxy === 'cilium' ? ' (enable-service-topology is off)' : d.serviceProxy === 'kube-proxy' ? ' (the TopologyAwareHints feature gate is off)' : '';
  return {
    state: `${who(d)} implements this cluster's Services and ${d.honoursHints ? 'honours' : 'ignores'} topology hints on Kubernetes ${d.release}${why}.`,
    action: `${hintsFix(d)}${advice.verdict}`,
    tone: !d.honoursHints ? 'error' : advice.action === 'switch' ? 'warn' : advice.action === 'plan' ? 'info' : 'ok',
  };
}
