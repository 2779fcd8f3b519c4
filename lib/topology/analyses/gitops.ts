/**
 * Who else writes a Service, whether their next apply puts a topology annotation back, and what
 * each toggle action is in Git and in kubectl.
 *
 * A Service applied by Argo CD, Flux, Helm or `kubectl apply` is re-applied from its source:
 * Argo CD's sync (self-heal, or the next manual sync), Flux's periodic reconciliation, the next
 * `helm upgrade` or `kubectl apply` of the manifest. Each puts back what its source declares and
 * leaves alone what it does not:
 * - client-side apply (kubectl, and Argo CD's default sync) merges three ways against
 *   `kubectl.kubernetes.io/last-applied-configuration`: a key the source declares is set again, a
 *   key added live that the source never had stays;
 * - server-side apply (Flux; Argo CD with `ServerSideApply=true`) records the fields each source
 *   owns in `metadata.managedFields` (operation `Apply`), and re-applies them with force;
 * - Helm 3 merges three ways against its stored release manifest; the fields it wrote are owned by
 *   its field manager `helm` (operation `Update`).
 * So the source declares a topology annotation when the last-applied configuration carries it or
 * a source's field manager owns it; then a live change is undone by the next sync. When the facts
 * are there and neither does, the change stays; when they are not (a `kubectl get -o yaml` dump
 * leaves managedFields out), zonescope says it may be reverted.
 *
 * Which tool, first match wins:
 * - field managers: `argocd-controller` (Argo CD's server-side apply, `ArgoCDSSAManager`) and
 *   `argocd-application-controller` (its client-side apply) → Argo CD; `kustomize-controller`,
 *   `helm-controller` → Flux; `helm` → Helm;
 * - Argo CD's tracking: annotation `argocd.argoproj.io/tracking-id` (annotation tracking, the
 *   default since 3.0), label `argocd.argoproj.io/instance` (the key its docs suggest for
 *   `application.instanceLabelKey`), or its default label `app.kubernetes.io/instance` together
 *   with a last-applied configuration and without Helm's own release annotations (Helm charts set
 *   that label too, but Helm writes no last-applied configuration; a chart rendered by Argo CD
 *   carries both);
 * - Flux: label `kustomize.toolkit.fluxcd.io/name` or `helm.toolkit.fluxcd.io/name`;
 * - Helm: annotation `meta.helm.sh/release-name` or label `app.kubernetes.io/managed-by: Helm`;
 * - kubectl: the field manager `kubectl-client-side-apply` or a last-applied configuration that
 *   declares a topology annotation.
 *
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/resource_tracking/ (argoproj/argo-cd, common/common.go: ArgoCDSSAManager = "argocd-controller")
 * @see https://fluxcd.io/flux/components/kustomize/kustomizations/
 * @see https://kubernetes.io/docs/reference/using-api/server-side-apply/
 * @see https://helm.sh/docs/chart_best_practices/labels/
 */
import type { FieldManagerFact, ServiceOwnershipFacts, ServiceRecord } from '../model/cluster-model';
import { sharedText } from '../model/flat-string';
import type { TopologyAnnotationChange } from './service-mechanism';
import { serviceMemo, type ServiceRecordMemo } from '../model/record-memo';

export type GitOpsTool = 'Argo CD' | 'Flux' | 'Helm' | 'kubectl apply';

/** The tool that applies the Service from a source, and whether its next apply undoes a live change. */
export interface GitOpsManager {
  readonly tool: GitOpsTool;
  /** `label argocd.argoproj.io/instance=shop`, `field manager argocd-controller`. */
  readonly evidence: string;
  /**
   * Where the source's topology annotations were read: `last-applied` (the
   * `kubectl.kubernetes.io/last-applied-configuration` annotation), `managedFields`, or `null`
   * when neither says.
   */
  readonly source: 'last-applied' | 'managedFields' | null;
  /** The topology annotations the source declares (key → value); empty when it declares none; `null` when unknown. */
  readonly declared: Readonly<Record<string, string>> | null;
  /**
   * A live change to the topology annotations: `reverted` by the next sync (the source declares
   * one), `stays` (no source declares any), `unknown` (only labels say who applies it).
   */
  readonly liveChange: 'reverted' | 'stays' | 'unknown';
  /** One line for next to the toggle and for the reports. */
  readonly warning: string;
}

/** One toggle action as the change to make in Git and as the live command. */
export interface ToggleEquivalent {
  readonly action: 'Enable' | 'Disable';
  /** `metadata.annotations` YAML fragment (a removed key is written as a comment). */
  readonly yaml: string;
  /** `kubectl annotate …` commands doing what the toggle's PATCH does. */
  readonly commands: readonly string[];
}

/** Field managers of the tools that re-apply a Service from a source. */
const SOURCE_MANAGERS: Readonly<Record<string, GitOpsTool>> = {
  'argocd-controller': 'Argo CD',
  'argocd-application-controller': 'Argo CD',
  'kustomize-controller': 'Flux',
  'helm-controller': 'Flux',
  helm: 'Helm',
  'kubectl-client-side-apply': 'kubectl apply',
};
const TOOL_ORDER: readonly GitOpsTool[] = ['Argo CD', 'Flux', 'Helm', 'kubectl apply'];

/** Whether a managedFields entry is a source's (re-applied on the next sync), not a live edit. */
function isSourceManager(fact: FieldManagerFact): boolean {
  return fact.operation === 'Apply' || SOURCE_MANAGERS[fact.manager] !== undefined;
}

interface Marker {
  readonly tool: GitOpsTool;
  readonly evidence: string;
}

function managerMarker(managers: readonly FieldManagerFact[] | null): Marker | null {
  if (managers === null) return null;
  const known = managers.filter((m) => SOURCE_MANAGERS[m.manager] !== undefined);
  // The manager that owns a topology key first, then by tool.
  const ranked = [...known].sort((a, b) => Number(b.topologyKeys.length > 0) - Number(a.topologyKeys.length > 0) || TOOL_ORDER.indexOf(SOURCE_MANAGERS[a.manager] as GitOpsTool) - TOOL_ORDER.indexOf(SOURCE_MANAGERS[b.manager] as GitOpsTool));
  const first = ranked[0];
  if (!first) return null;
  const tool = SOURCE_MANAGERS[first.manager] as GitOpsTool;
  // kubectl's own manager only names the tool when no GitOps marker does (Argo CD's client-side sync writes last-applied too).
  return tool === 'kubectl apply' ? null : { tool, evidence: `field manager ${first.manager}` };
}

function labelMarker(service: ServiceRecord): Marker | null {
  const labels = service.labels ?? {};
  const annotations = service.annotations;
  const label = (key: string) => (labels[key] !== undefined ? `label ${key}=${labels[key]}` : null);
  const annotation = (key: string) => (annotations[key] !== undefined ? `annotation ${key}: ${annotations[key]}` : null);
  const argo = annotation('argocd.argoproj.io/tracking-id') ?? label('argocd.argoproj.io/instance');
  if (argo) return { tool: 'Argo CD', evidence: argo };
  const helmRelease = annotation('meta.helm.sh/release-name');
  const lastApplied = service.ownership?.lastApplied ?? null;
  const instance = label('app.kubernetes.io/instance');
  if (instance && lastApplied !== null && !helmRelease) {
    const chart = labels['app.kubernetes.io/managed-by'] === 'Helm' ? ', a Helm chart rendered by Argo CD' : '';
    return { tool: 'Argo CD', evidence: `${instance}, Argo CD's default tracking label, with a last-applied configuration${chart}` };
  }
  const flux = label('kustomize.toolkit.fluxcd.io/name') ?? label('helm.toolkit.fluxcd.io/name');
  if (flux) return { tool: 'Flux', evidence: flux };
  const helm = helmRelease ?? (labels['app.kubernetes.io/managed-by'] === 'Helm' ? 'label app.kubernetes.io/managed-by=Helm' : null);
  if (helm) return { tool: 'Helm', evidence: helm };
  return null;
}

function kubectlMarker(ownership: ServiceOwnershipFacts | undefined): Marker | null {
  if (!ownership) return null;
  if (ownership.managers?.some((m) => m.manager === 'kubectl-client-side-apply' && m.topologyKeys.length > 0)) return { tool: 'kubectl apply', evidence: 'field manager kubectl-client-side-apply' };
  const lastApplied = ownership.lastApplied;
  if (lastApplied?.readable && Object.keys(lastApplied.topologyAnnotations).length > 0) return { tool: 'kubectl apply', evidence: 'annotation kubectl.kubernetes.io/last-applied-configuration' };
  return null;
}

/**
 * What the source declares and where that was read. The last-applied configuration is the source
 * of client-side appliers (Argo CD's default sync, kubectl); Flux and Helm write none, so for them
 * only managedFields say.
 */
function declaration(service: ServiceRecord, tool: GitOpsTool): Pick<GitOpsManager, 'source' | 'declared' | 'liveChange'> {
  const ownership = service.ownership;
  const lastApplied = ownership?.lastApplied ?? null;
  const clientSide = tool === 'Argo CD' || tool === 'kubectl apply';
  const readable = clientSide && lastApplied !== null && lastApplied.readable ? lastApplied : null;
  if (readable && Object.keys(readable.topologyAnnotations).length > 0) {
    return { source: 'last-applied', declared: readable.topologyAnnotations, liveChange: 'reverted' };
  }
  const managers = ownership?.managers ?? null;
  if (managers !== null) {
    const declared: Record<string, string> = {};
    for (const fact of managers) {
      if (!isSourceManager(fact)) continue;
      for (const key of fact.topologyKeys) declared[key] = service.annotations[key] ?? '';
    }
    if (Object.keys(declared).length > 0) return { source: 'managedFields', declared, liveChange: 'reverted' };
    // For a client-side applier its last-applied configuration is the source; managedFields agree.
    return { source: readable ? 'last-applied' : 'managedFields', declared: {}, liveChange: 'stays' };
  }
  if (readable) return { source: 'last-applied', declared: {}, liveChange: 'stays' };
  return { source: null, declared: null, liveChange: 'unknown' };
}

const NEXT_APPLY: Readonly<Record<GitOpsTool, string>> = {
  'Argo CD': 'the next Argo CD sync',
  Flux: "Flux's next reconciliation",
  Helm: 'the next helm upgrade',
  'kubectl apply': 'the next kubectl apply of that manifest',
};
const SOURCE_NAME: Readonly<Record<GitOpsTool, string>> = {
  'Argo CD': 'the Git source',
  Flux: 'the Git source',
  Helm: 'the chart',
  'kubectl apply': 'the applied manifest',
};
const WHERE: Readonly<Record<'last-applied' | 'managedFields', string>> = {
  'last-applied': 'its kubectl.kubernetes.io/last-applied-configuration',
  managedFields: 'its managedFields',
};

function warningOf(marker: Marker, found: Pick<GitOpsManager, 'source' | 'declared' | 'liveChange'>, withManagedFields: boolean): string {
  const head = `${marker.tool === 'kubectl apply' ? 'Applied with kubectl apply' : `Managed by ${marker.tool}`} (${marker.evidence})`;
  const when = NEXT_APPLY[marker.tool];
  if (found.liveChange === 'reverted' && found.declared && found.source) {
    const declared = Object.entries(found.declared)
      .map(([key, value]) => `${key}: ${value}`)
      .join(' and ');
    const source = SOURCE_NAME[marker.tool];
    return `${head}: ${source} declares ${declared} (read from ${WHERE[found.source]}) — ${when} puts it back. Make the change in ${marker.tool === 'kubectl apply' ? 'that manifest' : 'Git'}.`;
  }
  if (found.liveChange === 'stays' && found.source) {
    const read = found.source === 'last-applied' && withManagedFields ? `${WHERE['last-applied']} and managedFields` : WHERE[found.source];
    return `${head}: no manager declares a topology annotation (read from ${read}) — the change stays after ${when}. Put it in ${marker.tool === 'kubectl apply' ? 'the manifest' : 'Git'} too, so the source says what runs.`;
  }
  return `${head}: ${when} may revert a live patch. Make the change in Git.`;
}

/**
 * The GitOps tool, Helm or `kubectl apply` that applies the Service, `null` when nothing says so.
 * Once per record: every analysis pass asks for every Service, and records live until they change.
 */
export function gitOpsManager(service: ServiceRecord, memo: ServiceRecordMemo = serviceMemo(service)): GitOpsManager | null {
  let found = memo.gitOps as GitOpsManager | null | undefined;
  if (found === undefined) {
    found = findGitOpsManager(service);
    memo.gitOps = found;
  }
  return found;
}

function findGitOpsManager(service: ServiceRecord): GitOpsManager | null {
  const marker = managerMarker(service.ownership?.managers ?? null) ?? labelMarker(service) ?? kubectlMarker(service.ownership);
  if (!marker) return null;
  const found = declaration(service, marker.tool);
  // Kept with the record for as long as it lives: its built texts laid out in one piece, one copy
  // of each (a Helm-installed cluster gives thousands of Services the same warning word for word).
  return { tool: marker.tool, evidence: sharedText(marker.evidence), ...found, warning: sharedText(warningOf(marker, found, (service.ownership?.managers ?? null) !== null)) };
}

/** What the toggle's Enable and Disable write, as a Git YAML fragment and as kubectl commands. */
export function toggleEquivalents(service: ServiceRecord, change: { readonly enable: TopologyAnnotationChange; readonly disable: TopologyAnnotationChange }): ToggleEquivalent[] {
  const target = `service ${service.name} -n ${service.namespace}`;
  /** A removed key as the line to delete from the manifest, with the value the Service has now. */
  const removedLine = (key: string, why: string) => {
    const value = service.annotations[key];
    return `    # remove the line "${key}: ${value ?? ''}"${why}`;
  };
  const one = (action: ToggleEquivalent['action'], edit: TopologyAnnotationChange): ToggleEquivalent => {
    const set = Object.entries(edit.set);
    const why = set.length > 0 ? ' (it would win over the key above)' : ' (no topology annotation means off)';
    const lines = [...set.map(([key, value]) => `    ${key}: ${value}`), ...edit.remove.map((key) => removedLine(key, why))];
    return {
      action,
      yaml: ['metadata:', '  annotations:', ...(lines.length > 0 ? lines : ['    # nothing to change: the Service carries no topology annotation'])].join('\n'),
      commands: [
        ...set.map(([key, value]) => `kubectl annotate ${target} ${key}=${value} --overwrite`),
        ...edit.remove.map((key) => `kubectl annotate ${target} ${key}-`),
      ],
    };
  };
  return [one('Enable', change.enable), one('Disable', change.disable)];
}
