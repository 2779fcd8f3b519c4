/**
 * The change that spreads a Deployment's pods evenly over zones (a zone topology spread constraint
 * with maxSkew 1 and DoNotSchedule, selecting the pods by their template labels), as a
 * strategic-merge patch in YAML and as one `kubectl patch` command.
 *
 * @see https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/
 */
import { memoOnObject } from '../model/object-memo';
import { LABEL_TOPOLOGY_ZONE } from '../upstream/constants';

function sortedLabels(labels: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A YAML scalar: quoted when plain style would change its meaning (`"true"`, `"1"`, `"a: b"`). */
function yamlScalar(value: string): string {
  return /^[A-Za-z_][A-Za-z0-9_./-]*$/.test(value) && !/^(true|false|yes|no|on|off|null|y|n)$/i.test(value) ? value : JSON.stringify(value);
}

/**
 * The zone spread (maxSkew 1, DoNotSchedule, selecting the pods by `podLabels`) as a complete
 * strategic-merge patch of the Deployment, in YAML under its full path, with the command that
 * applies it as its first line.
 */
export function spreadPatchYaml(namespace: string, deployment: string, podLabels: Readonly<Record<string, string>>): string {
  return [
    `# kubectl patch deployment/${deployment} -n ${namespace} --type strategic --patch-file spread.yaml`,
    'spec:',
    '  template:',
    '    spec:',
    '      topologySpreadConstraints:',
    '        - maxSkew: 1',
    `          topologyKey: ${LABEL_TOPOLOGY_ZONE}`,
    '          whenUnsatisfiable: DoNotSchedule',
    '          labelSelector:',
    '            matchLabels:',
    matchLabelsYaml(podLabels),
  ].join('\n');
}

/**
 * The patches' label parts by label map: pod template labels are shared records (the sources
 * intern them), and an analysis with every field writes a patch for most Deployments, several
 * times for some (one per fix that adds pods), so each map's text is made once.
 */
const LABELS_YAML = new WeakMap<Readonly<Record<string, string>>, string>();
const LABELS_JSON = new WeakMap<Readonly<Record<string, string>>, string>();

/** The `matchLabels` lines of {@link spreadPatchYaml}. */
function matchLabelsYaml(podLabels: Readonly<Record<string, string>>): string {
  return memoOnObject(LABELS_YAML, podLabels, (labels) => {
    const sorted = sortedLabels(labels);
    return (sorted.length > 0 ? sorted.map(([k, v]) => `              ${k}: ${yamlScalar(v)}`) : ['              app: <your-app>']).join('\n');
  });
}

/** The `matchLabels` object of {@link spreadPatchCommand} as JSON, its single quotes escaped for the shell. */
function matchLabelsJson(podLabels: Readonly<Record<string, string>>): string {
  return memoOnObject(LABELS_JSON, podLabels, (labels) => escapeQuotes(JSON.stringify(Object.fromEntries(sortedLabels(labels)))));
}

/** Single quotes inside a label value would end the shell string: escaped the POSIX way. */
function escapeQuotes(text: string): string {
  return text.replace(/'/g, "'\\''");
}

/** The patch of {@link spreadPatchCommand} before its labels, as `JSON.stringify` writes it. */
const PATCH_JSON_HEAD = `{"spec":{"template":{"spec":{"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":${escapeQuotes(JSON.stringify(LABEL_TOPOLOGY_ZONE))},"whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":`;

/** The same patch as one `kubectl patch deployment … --type strategic -p '…'` command. */
export function spreadPatchCommand(namespace: string, deployment: string, podLabels: Readonly<Record<string, string>>): string {
  return `kubectl patch deployment/${deployment} -n ${namespace} --type strategic -p '${PATCH_JSON_HEAD}${matchLabelsJson(podLabels)}}}]}}}}'`;
}
