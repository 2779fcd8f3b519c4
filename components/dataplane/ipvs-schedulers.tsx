/** The IPVS schedulers explained, the one in effect marked, and what IPVS mode needs on the nodes. */
import type { DataplaneAnalysis } from '@/lib/topology/analyses/analyze-dataplane';
import { CommandBlock } from '../ui/command';
import { Code } from '../ui/panel';
import { Badge } from '../ui/status';

export function IpvsSchedulers({ dataplane: d }: { readonly dataplane: DataplaneAnalysis }) {
  const current = d.proxyMode === 'ipvs' ? (d.ipvsScheduler?.name ?? 'rr') : null;
  const r = d.ipvsRequirements;
  return (
    <div className="space-y-4">
      <div className="overflow-x-auto">
        <table className="w-full text-sm">
          <caption className="mb-1 text-left text-xs text-slate-600 dark:text-slate-400">
            kube-proxy gives every real server weight 1, so weighted schedulers behave like their unweighted counterparts; topology hints change which
            real servers exist on each node, not how the scheduler picks among them.
          </caption>
          <thead>
            <tr className="border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-600 dark:border-slate-700 dark:text-slate-400">
              <th scope="col" className="py-1.5 pr-3 font-medium">Scheduler</th>
              <th scope="col" className="py-1.5 pr-3 font-medium">How it picks</th>
              <th scope="col" className="py-1.5 pr-3 font-medium">Under kube-proxy</th>
              <th scope="col" className="py-1.5 font-medium">Kernel module</th>
            </tr>
          </thead>
          <tbody>
            {d.ipvsSchedulers.map((s) => (
              <tr key={s.name} className={`border-b border-slate-100 align-top last:border-0 dark:border-slate-800 ${s.name === current ? 'bg-sky-50 dark:bg-sky-950/40' : ''}`}>
                <th scope="row" className="py-1.5 pr-3 text-left font-normal">
                  <Code>{s.name}</Code> <span className="block text-xs">{s.title}</span>
                  {s.name === current ? <Badge tone="info">in use</Badge> : null}
                </th>
                <td className="py-1.5 pr-3">{s.description}</td>
                <td className="py-1.5 pr-3">{s.kubernetesNote}</td>
                <td className="py-1.5 font-mono text-xs">{s.kernelModule}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <details className="rounded-md border border-slate-200 p-3 dark:border-slate-700">
        <summary className="cursor-pointer text-sm font-semibold">Switching to IPVS (what every node needs)</summary>
        <div className="mt-3 space-y-2 text-sm">
          <p>
            Packages: {r.packages.map((p) => <Code key={p}>{p}</Code>).reduce<React.ReactNode[]>((acc, el, i) => (i === 0 ? [el] : [...acc, ', ', el]), [])}. Kernel modules:{' '}
            <span className="font-mono text-xs">{r.kernelModules.join(' ')}</span>.
          </p>
          {d.platform.platform === 'eks' ? (
            <>
              <p className="text-xs text-slate-600 dark:text-slate-400">Check the mode:</p>
              <CommandBlock command={r.checkModeCommand} />
              <p className="text-xs text-slate-600 dark:text-slate-400">EKS managed add-on:</p>
              <CommandBlock command={r.eksAddonCommand} />
              <CommandBlock command={r.restartCommand} />
            </>
          ) : (
            <p className="text-xs text-slate-600 dark:text-slate-400">
              {d.platform.platform === 'gke' || d.platform.platform === 'aks'
                ? `On ${d.platform.platform.toUpperCase()} the platform configures kube-proxy; see the note under Service proxy.`
                : 'Set mode: ipvs in the kube-proxy configuration (kube-system/kube-proxy on kubeadm clusters), then restart the kube-proxy DaemonSet.'}
            </p>
          )}
          <p className="text-xs text-slate-600 dark:text-slate-400">Inspect on a node:</p>
          {r.inspectCommands.map((c) => (
            <CommandBlock key={c} command={c} />
          ))}
          <p className="text-xs text-amber-800 dark:text-amber-300">IPVS mode is deprecated from Kubernetes 1.35 (KEP-5495); nftables is the recommended successor for large Service counts.</p>
        </div>
      </details>
    </div>
  );
}
