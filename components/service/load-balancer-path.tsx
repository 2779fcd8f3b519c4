/**
 * The external path into a LoadBalancer / NodePort Service: load balancer → node (NodePort, then
 * kube-proxy) or straight to pod IPs; externalTrafficPolicy, AWS target type, client IP
 * preservation and the cross-zone setting with its cost; IP vs instance targets × Local vs Cluster
 * compared; the annotation changes worth making; and the nodes that drop traffic under Local.
 */
import type { LoadBalancerAnalysis } from '@/lib/topology/analyses/load-balancer';
import { CommandBlock } from '../ui/command';
import { ArrowRightIcon } from '../ui/icons';
import { Code, Facts } from '../ui/panel';
import { Badge, Callout } from '../ui/status';

function Step({ title, detail, muted }: { readonly title: string; readonly detail?: string; readonly muted?: boolean }) {
  return (
    <div className={`min-w-0 flex-1 rounded-md border p-2 text-center ${muted ? 'border-dashed border-slate-400 text-slate-600 line-through decoration-slate-500 dark:border-slate-600 dark:text-slate-400' : 'border-slate-300 bg-slate-50 dark:border-slate-600 dark:bg-slate-800'}`}>
      <p className="text-sm font-semibold">{title}</p>
      {detail ? <p className="text-xs no-underline">{detail}</p> : null}
    </div>
  );
}

export function LoadBalancerPath({ lb }: { readonly lb: LoadBalancerAnalysis }) {
  const aws = lb.aws;
  const steps: { title: string; detail?: string; muted?: boolean }[] = [{ title: 'Client' }];
  if (lb.path !== 'node-port') steps.push({ title: aws ? `AWS ${aws.kind.toUpperCase()}` : 'Load balancer', detail: aws ? `cross-zone ${aws.crossZoneEnabled ? 'on' : 'off'}` : undefined });
  if (lb.path === 'lb-to-pod') {
    steps.push({ title: 'NodePort + kube-proxy', detail: 'bypassed (IP targets)', muted: true });
  } else {
    steps.push({ title: 'Node (NodePort)', detail: `externalTrafficPolicy: ${lb.externalTrafficPolicy}` });
    steps.push({ title: 'kube-proxy', detail: lb.externalTrafficPolicy === 'Local' ? 'local endpoints only' : 'any endpoint (hints narrow it)' });
  }
  // What the pod sees as the source: with IP targets nothing SNATs on a node, so without client IP
  // preservation it is the load balancer's own private address.
  const podSees = lb.sourceIpPreserved ? 'client IP preserved' : lb.path === 'lb-to-pod' ? "sees the load balancer's private IP" : 'sees the node IP (SNAT)';
  steps.push({ title: 'Pod', detail: podSees });
  return (
    <div className="space-y-3">
      <ol className="flex flex-wrap items-stretch gap-2" aria-label="Path of external traffic">
        {steps.map((step, i) => (
          <li key={step.title} className="flex min-w-[7rem] flex-1 items-stretch gap-1">
            {i > 0 ? (
              <span aria-hidden="true" className="flex items-center text-slate-500">
                <ArrowRightIcon className="h-5 w-5" />
              </span>
            ) : null}
            <Step {...step} />
          </li>
        ))}
      </ol>
      <Facts
        items={[
          { label: 'Type', value: lb.type },
          { label: 'externalTrafficPolicy', value: <Code>{lb.externalTrafficPolicy}</Code> },
          ...(aws
            ? [
                { label: 'Provisioned by', value: aws.controller === 'aws-load-balancer-controller' ? 'AWS Load Balancer Controller' : 'in-tree cloud provider' },
                {
                  label: 'AWS target type',
                  value: (
                    <>
                      <Code>{aws.targetType}</Code> <span className="text-xs text-slate-600 dark:text-slate-400">({aws.targetTypeSource})</span>
                    </>
                  ),
                },
                {
                  label: 'Client IP at the pod',
                  value: (
                    <>
                      {lb.sourceIpPreserved ? 'preserved' : 'not preserved'}{' '}
                      <span className="text-xs text-slate-600 dark:text-slate-400">
                        ({lb.path === 'lb-to-pod' ? aws.clientIpSource : lb.externalTrafficPolicy === 'Local' ? 'externalTrafficPolicy: Local' : 'externalTrafficPolicy: Cluster SNATs to the node IP'})
                      </span>
                    </>
                  ),
                },
                {
                  label: 'Cross-zone load balancing',
                  value: (
                    <>
                      <Badge tone={aws.crossZoneEnabled ? 'warn' : 'ok'}>{aws.crossZoneEnabled ? 'on' : 'off'}</Badge> <span className="text-xs text-slate-600 dark:text-slate-400">({aws.crossZoneSource})</span>
                    </>
                  ),
                },
              ]
            : []),
          { label: 'Bypasses kube-proxy', value: lb.bypassesKubeProxy ? 'yes' : 'no' },
          { label: 'Extra node hop possible', value: lb.extraHopPossible ? 'yes' : 'no' },
          { label: 'Can cross zones', value: <Badge tone={lb.crossZonePossible ? 'warn' : 'ok'}>{lb.crossZonePossible ? 'yes' : 'no'}</Badge> },
          // Only the node path reads it (externalTrafficPolicy, health checks); IP targets skip nodes.
          ...(lb.path === 'lb-to-pod' ? [] : [{ label: 'Nodes with a local endpoint', value: lb.nodesWithLocalEndpoints }]),
        ]}
      />
      <ul className="list-disc space-y-1 pl-5 text-sm">
        {lb.explanation.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      {lb.crossZoneCost ? <p className="text-sm">{lb.crossZoneCost}</p> : null}
      {lb.fixes.map((fix) => (
        <Callout key={fix.title} tone="warn" title={fix.title}>
          <p>{fix.why}</p>
          <CommandBlock command={fix.yaml} language="yaml" label="Service annotation (Git)" />
          <CommandBlock command={fix.command} label="Live" />
        </Callout>
      ))}
      {lb.modes.length > 0 ? (
        <div className="overflow-x-auto">
          <table className="w-full text-sm">
            <caption className="mb-1 text-left text-xs text-slate-600 dark:text-slate-400">
              Target type (<Code>service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: ip|instance</Code>) × externalTrafficPolicy
            </caption>
            <thead>
              <tr className="border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-600 dark:border-slate-700 dark:text-slate-400">
                <th scope="col" className="py-1.5 pr-3 font-medium">Targets</th>
                <th scope="col" className="py-1.5 pr-3 font-medium">Policy</th>
                <th scope="col" className="py-1.5 pr-3 font-medium">Path</th>
                <th scope="col" className="py-1.5 pr-3 font-medium">Client IP</th>
                <th scope="col" className="py-1.5 font-medium">Cross-zone</th>
              </tr>
            </thead>
            <tbody>
              {lb.modes.map((m) => (
                <tr
                  key={`${m.targetType}-${m.externalTrafficPolicy}`}
                  aria-current={m.current ? 'true' : undefined}
                  className={`border-b border-slate-100 last:border-0 dark:border-slate-800 ${m.current ? 'bg-sky-50 font-semibold dark:bg-sky-950' : ''}`}
                >
                  <th scope="row" className="whitespace-nowrap py-1.5 pr-3 text-left font-mono font-normal">
                    {m.targetType}
                    {m.current ? <span className="ml-1 font-sans text-xs">(this Service)</span> : null}
                  </th>
                  <td className="py-1.5 pr-3 font-mono">{m.externalTrafficPolicy}</td>
                  <td className="py-1.5 pr-3">{m.path}</td>
                  <td className="py-1.5 pr-3">{m.clientIp}</td>
                  <td className="py-1.5">{m.crossZone}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {lb.nodesWithoutLocalEndpoints && lb.nodesWithoutLocalEndpoints.count > 0 ? (
        <Callout tone="warn" title={`${lb.nodesWithoutLocalEndpoints.count} node(s) have no local endpoint under externalTrafficPolicy: Local`}>
          <p>They fail the load balancer&apos;s health check (503 on the health check node port) and drop traffic that still reaches them.</p>
          <p className="break-words font-mono text-xs">
            {lb.nodesWithoutLocalEndpoints.names.join(', ')}
            {lb.nodesWithoutLocalEndpoints.truncated ? ', …' : ''}
          </p>
        </Callout>
      ) : null}
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Trade-off: <strong>Local</strong> keeps the client IP and avoids the extra hop and cross-zone forwarding, but nodes without a ready pod drop
        traffic and load follows the load balancer&apos;s spread, not the pods. <strong>Cluster</strong> spreads over every pod (hints narrow it to the
        zone) at the cost of an extra hop and SNAT. With the AWS Load Balancer Controller, <Code>ip</Code> targets send straight to pods and make the
        policy moot; <Code>instance</Code> targets go through NodePort.
      </p>
    </div>
  );
}
