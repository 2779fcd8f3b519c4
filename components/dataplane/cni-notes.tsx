/** What each CNI / Service dataplane does with topology hints, with what this cluster runs marked. */
import type { DataplaneAnalysis } from '@/lib/topology/analyses/analyze-dataplane';
import { Code, LINK } from '../ui/panel';
import { Badge } from '../ui/status';

export function CniNotes({ dataplane: d }: { readonly dataplane: DataplaneAnalysis }) {
  const ciliumKpr = d.cilium?.kubeProxyReplacement ?? false;
  const cards = [
    {
      id: 'cilium',
      title: 'Cilium',
      detected: d.cilium !== null,
      status: d.cilium ? (ciliumKpr ? (d.cilium.serviceTopology ? 'kube-proxy replacement with service topology: hints honoured' : 'kube-proxy replacement without service topology: hints IGNORED') : 'kube-proxy still implements Services: hints honoured') : null,
      tone: d.cilium ? (ciliumKpr && !d.cilium.serviceTopology ? ('error' as const) : ('ok' as const)) : ('neutral' as const),
      body: (
        <>
          With <Code>kubeProxyReplacement</Code> Cilium&apos;s eBPF load balancer replaces kube-proxy and ignores EndpointSlice hints unless{' '}
          <Code>loadBalancer.serviceTopology=true</Code> (<Code>enable-service-topology: &quot;true&quot;</Code> in cilium-config). Without replacement,
          kube-proxy still routes Services and hints work as usual.
        </>
      ),
      source: 'https://docs.cilium.io/en/stable/network/kubernetes/kubeproxy-free/#topology-aware-hints',
    },
    {
      id: 'calico',
      title: 'Calico eBPF',
      detected: d.calicoEbpf,
      status: d.calicoEbpf ? 'eBPF dataplane: honours hints (Calico 3.26+)' : null,
      tone: d.calicoEbpf ? ('ok' as const) : ('neutral' as const),
      body: <>Calico&apos;s eBPF dataplane replaces kube-proxy and honours topology hints since Calico 3.26; older versions ignore them. The iptables dataplane leaves Services to kube-proxy.</>,
      source: 'https://github.com/projectcalico/calico/pull/7241',
    },
    {
      id: 'aws-vpc-cni',
      title: 'Amazon VPC CNI',
      detected: d.awsVpcCni,
      status: d.awsVpcCni ? 'kube-proxy routes Services: hints honoured' : null,
      tone: d.awsVpcCni ? ('ok' as const) : ('neutral' as const),
      body: (
        <>
          The EKS default CNI gives pods VPC IPs and leaves Services to kube-proxy, so hints work. Load balancers in <Code>ip</Code> target mode send
          straight to pod IPs and bypass kube-proxy (and <Code>externalTrafficPolicy</Code>); <Code>instance</Code> mode goes through NodePort.
        </>
      ),
      source: 'https://docs.aws.amazon.com/eks/latest/best-practices/cost-opt-networking.html',
    },
  ];
  return (
    <div className="grid gap-3 lg:grid-cols-3">
      {cards.map((card) => (
        <div key={card.id} className="space-y-2 rounded-md border border-slate-200 p-3 dark:border-slate-700">
          <h3 className="flex flex-wrap items-center gap-2 text-sm font-semibold">
            {card.title}
            <Badge tone={card.detected ? card.tone : 'neutral'}>{card.detected ? 'detected' : 'not detected'}</Badge>
          </h3>
          {card.status ? <p className="text-sm font-medium">{card.status}</p> : null}
          <p className="text-sm text-slate-700 dark:text-slate-300">{card.body}</p>
          <p className="text-xs">
            <a href={card.source} className={LINK} target="_blank" rel="noreferrer">
              Source
            </a>
          </p>
        </div>
      ))}
    </div>
  );
}
