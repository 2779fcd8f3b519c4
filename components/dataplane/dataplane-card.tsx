/**
 * The dataplane in a few facts: who implements Services, whether it honours hints, kube-proxy mode
 * and IPVS scheduler, IPVS deprecation, Cilium's kube-proxy replacement, the annotation key for the
 * release and whether kube-proxy needs it. Used on the Overview (compact) and the Dataplane view.
 */
import { ClusterLink } from '../layout/cluster-base';
import type { DataplaneAnalysis } from '@/lib/topology/analyses/analyze-dataplane';
import { Code, Facts, LINK } from '../ui/panel';
import { Badge, Callout, severityTone } from '../ui/status';

const PROXY_LABEL: Record<DataplaneAnalysis['serviceProxy'], string> = {
  'kube-proxy': 'kube-proxy',
  cilium: 'Cilium kube-proxy replacement (eBPF)',
  'calico-ebpf': 'Calico eBPF dataplane',
};

export function proxyModeText(d: DataplaneAnalysis): string {
  if (d.proxyMode === 'unknown') return d.serviceProxy === 'kube-proxy' ? 'unknown (no kube-proxy ConfigMap read)' : 'not used (replaced)';
  const written = d.proxyModeAsWritten === '' ? ' (empty = platform default)' : '';
  return `${d.proxyMode}${written}`;
}

export function DataplaneFacts({
  dataplane: d,
  stacked = false,
  releasesHref = null,
}: {
  readonly dataplane: DataplaneAnalysis;
  readonly stacked?: boolean;
  /** Where the annotation of every release is listed (the Dataplane page's table), linked from this release's. */
  readonly releasesHref?: string | null;
}) {
  return (
    <Facts
      stacked={stacked}
      items={[
        { label: 'Services implemented by', value: PROXY_LABEL[d.serviceProxy] },
        {
          label: 'Honours topology hints',
          value: (
            <span className="space-y-1">
              <Badge tone={d.honoursHints ? 'ok' : 'error'}>{d.honoursHints ? 'yes' : 'no'}</Badge>{' '}
              <span className="text-slate-700 dark:text-slate-300">{d.honoursHintsReason}</span>
            </span>
          ),
        },
        {
          label: 'kube-proxy mode',
          value: (
            <>
              <Code>{proxyModeText(d)}</Code>
              {d.proxyConfigSource ? <span className="text-xs text-slate-600 dark:text-slate-400"> from {d.proxyConfigSource}</span> : null}
            </>
          ),
        },
        ...(d.ipvsScheduler
          ? [
              {
                label: 'IPVS scheduler',
                value: (
                  <>
                    <Code>{d.ipvsScheduler.name}</Code> {d.ipvsScheduler.title} — {d.ipvsScheduler.kubernetesNote}
                  </>
                ),
              },
            ]
          : []),
        ...(d.proxyMode === 'ipvs'
          ? [{ label: 'IPVS deprecation', value: d.ipvsDeprecated ? <Badge tone="warn">deprecated on {d.release} (KEP-5495): plan nftables</Badge> : <span>not deprecated on {d.release} (deprecated from 1.35; nftables is the successor)</span> }]
          : []),
        ...(d.cilium
          ? [
              {
                label: 'Cilium',
                value: (
                  <>
                    kube-proxy replacement <Code>{d.cilium.mode || 'false'}</Code>
                    {d.cilium.kubeProxyReplacement ? (
                      <>
                        , service topology{' '}
                        <Badge tone={d.cilium.serviceTopology ? 'ok' : 'error'}>{d.cilium.serviceTopology ? 'enabled' : 'off: hints ignored'}</Badge>
                      </>
                    ) : null}
                    <span className="text-xs text-slate-600 dark:text-slate-400"> ({d.cilium.source})</span>
                  </>
                ),
              },
            ]
          : []),
        {
          label: `Annotation on ${d.release}`,
          value: (
            <>
              <Code>
                {d.annotationKey}: {d.annotationValue}
              </Code>
              <span className="block text-xs text-slate-600 dark:text-slate-400">
                {d.annotationNote}
                {releasesHref ? (
                  <>
                    {' '}
                    <a href={releasesHref} className={LINK}>
                      Annotation per release
                    </a>
                  </>
                ) : null}
              </span>
            </>
          ),
        },
        {
          label: 'kube-proxy needs the annotation',
          value: (
            <>
              {d.kubeProxyRequiresAnnotation ? 'yes' : 'no'} — <span className="text-slate-700 dark:text-slate-300">{d.kubeProxyNote}</span>
            </>
          ),
        },
      ]}
    />
  );
}

/** The note that repeats the annotation row of the facts (it says this release's annotation once, there). */
const ANNOTATION_NOTE = 'annotation-key';

export function DataplaneCard({ dataplane, compact = false, releasesHref = null }: { readonly dataplane: DataplaneAnalysis; readonly compact?: boolean; readonly releasesHref?: string | null }) {
  const notes = dataplane.notes.filter((n) => n.id !== ANNOTATION_NOTE && (!compact || n.severity !== 'info'));
  return (
    <div className="space-y-3">
      <DataplaneFacts dataplane={dataplane} stacked={compact} releasesHref={releasesHref} />
      {notes.map((note) => (
        <Callout key={note.id} tone={severityTone(note.severity)} title={note.title}>
          <p>{note.detail}</p>
          <p className="text-xs">
            Source:{' '}
            <a href={note.source} className={LINK} rel="noreferrer" target="_blank">
              {note.source.replace(/^https?:\/\//, '')}
            </a>
          </p>
        </Callout>
      ))}
      {compact ? (
        <p className="text-sm">
          <ClusterLink href="/dataplane" className={LINK}>
            Proxy mode costs, IPVS schedulers and CNI notes →
          </ClusterLink>
        </p>
      ) : null}
    </div>
  );
}
