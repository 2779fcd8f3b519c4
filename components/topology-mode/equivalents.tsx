/**
 * Beside the toggle: who else applies this Service (Argo CD, Flux, Helm — a live patch may be
 * reverted on their next sync) and, for Enable and Disable, the change to make in Git and the
 * equivalent kubectl command.
 */
import type { ServiceRecord } from '@/lib/topology/model/cluster-model';
import { gitOpsManager, toggleEquivalents } from '@/lib/topology/analyses/gitops';
import { topologyAnnotationChange } from '@/lib/topology/analyses/service-mechanism';
import { CommandBlock, Commands } from '../ui/command';
import { Callout } from '../ui/status';

export function TopologyModeEquivalents({ service, minor }: { readonly service: ServiceRecord; readonly minor: number }) {
  const manager = gitOpsManager(service);
  const change = { enable: topologyAnnotationChange(service.annotations, minor, true), disable: topologyAnnotationChange(service.annotations, minor, false) };
  const equivalents = toggleEquivalents(service, change);
  return (
    <div className="mt-4 space-y-3">
      {manager ? (
        <Callout tone={manager.liveChange === 'stays' ? 'info' : 'warn'} title={manager.tool === 'kubectl apply' ? 'Applied with kubectl apply' : `Managed by ${manager.tool}`}>
          <p>{manager.warning}</p>
        </Callout>
      ) : null}
      <details className="rounded-md border border-slate-200 p-2 text-sm dark:border-slate-700" open={manager !== null}>
        <summary className="cursor-pointer font-semibold">{manager ? 'The change in Git, and the live commands' : 'The same change with kubectl, or in Git'}</summary>
        <div className="mt-2 space-y-3">
          {equivalents.map((eq) => (
            <div key={eq.action} className="space-y-1">
              <p className="text-xs font-semibold">{eq.action}</p>
              <CommandBlock command={eq.yaml} language="yaml" label={`${eq.action}: Service manifest in Git`} />
              <Commands commands={eq.commands} />
            </div>
          ))}
        </div>
      </details>
    </div>
  );
}
