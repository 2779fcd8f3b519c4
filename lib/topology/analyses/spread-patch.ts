/**
 * The change that spreads a Deployment's pods evenly over zones (a zone topology spread constraint
 * with maxSkew 1 and DoNotSchedule, selecting the pods by their template labels), as a
 * strategic-merge patch in YAML and as one `kubectl patch` command.
 *
 * @see https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/
 */
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
  const labels = sortedLabels(podLabels);
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
    ...(labels.length > 0 ? labels.map(([k, v]) => `              ${k}: ${yamlScalar(v)}`) : ['              app: <your-app>']),
  ].join('\n');
}

/** The same patch as one `kubectl patch deployment … --type strategic -p '…'` command. */
export function spreadPatchCommand(namespace: string, deployment: string, podLabels: Readonly<Record<string, string>>): string {
  const patch = {
    spec: {
      template: {
        spec: {
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: LABEL_TOPOLOGY_ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: Object.fromEntries(sortedLabels(podLabels)) } },
          ],
        },
      },
    },
  };
  // Single quotes inside a label value would end the shell string: escape them the POSIX way.
  return `kubectl patch deployment/${deployment} -n ${namespace} --type strategic -p '${JSON.stringify(patch).replace(/'/g, "'\\''")}'`;
}
