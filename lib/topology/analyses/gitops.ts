/**
 * Who else writes a Service, and what each toggle action is in Git and in kubectl.
 *
 * A Service applied by Argo CD, Flux or Helm is re-applied from its source: Argo CD's sync (with
 * self-heal, or the next manual sync) and Flux's periodic reconciliation put back what Git holds,
 * and the next `helm upgrade` the chart's. A live annotation patch may then be reverted, so the
 * change belongs in Git (the chart's values or the manifest). Markers read:
 * - Argo CD: label `argocd.argoproj.io/instance` or annotation `argocd.argoproj.io/tracking-id`;
 * - Flux: label `kustomize.toolkit.fluxcd.io/name` or `helm.toolkit.fluxcd.io/name`;
 * - Helm: label `app.kubernetes.io/managed-by: Helm` or annotation `meta.helm.sh/release-name`.
 *
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/resource_tracking/
 * @see https://fluxcd.io/flux/components/kustomize/kustomizations/
 * @see https://helm.sh/docs/chart_best_practices/labels/
 */
import type { ServiceRecord } from '../model/cluster-model';
import type { TopologyAnnotationChange } from './service-mechanism';

/** The tool that applies the Service from a source, and the marker that says so. */
export interface GitOpsManager {
  readonly tool: 'Argo CD' | 'Flux' | 'Helm';
  /** `label argocd.argoproj.io/instance=shop`. */
  readonly evidence: string;
  /** One line for next to the toggle. */
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

function marker(service: ServiceRecord): Omit<GitOpsManager, 'warning'> | null {
  const labels = service.labels ?? {};
  const annotations = service.annotations;
  const label = (key: string) => (labels[key] !== undefined ? `label ${key}=${labels[key]}` : null);
  const annotation = (key: string) => (annotations[key] !== undefined ? `annotation ${key}: ${annotations[key]}` : null);
  const argo = label('argocd.argoproj.io/instance') ?? annotation('argocd.argoproj.io/tracking-id');
  if (argo) return { tool: 'Argo CD', evidence: argo };
  const flux = label('kustomize.toolkit.fluxcd.io/name') ?? label('helm.toolkit.fluxcd.io/name');
  if (flux) return { tool: 'Flux', evidence: flux };
  const helm = labels['app.kubernetes.io/managed-by'] === 'Helm' ? 'label app.kubernetes.io/managed-by=Helm' : annotation('meta.helm.sh/release-name');
  if (helm) return { tool: 'Helm', evidence: helm };
  return null;
}

/** The GitOps tool or Helm that manages the Service, `null` when no marker is present. */
export function gitOpsManager(service: ServiceRecord): GitOpsManager | null {
  const found = marker(service);
  if (!found) return null;
  const when = found.tool === 'Argo CD' ? 'the next Argo CD sync' : found.tool === 'Flux' ? "Flux's next reconciliation" : 'the next helm upgrade';
  return { ...found, warning: `Managed by ${found.tool} (${found.evidence}): ${when} may revert a live patch. Make the change in Git.` };
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
