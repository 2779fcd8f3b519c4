import { describe, expect, it } from 'vitest';
import { spreadPatchCommand, spreadPatchYaml } from './spread-patch';

/** The `-p '…'` argument of a command as the shell hands it to kubectl (POSIX single quotes, `'\''` for a quote). */
function patchArgument(command: string): unknown {
  const quoted = command.slice(command.indexOf(" -p '") + 4);
  let text = '';
  for (let i = 0; i < quoted.length; ) {
    if (quoted[i] !== "'") throw new Error(`unquoted text at ${i}: ${quoted.slice(i)}`);
    const end = quoted.indexOf("'", i + 1);
    text += quoted.slice(i + 1, end);
    i = end + 1;
    if (quoted.startsWith("\\'", i)) {
      text += "'";
      i += 2;
    }
  }
  return JSON.parse(text);
}

describe('spreadPatchCommand', () => {
  it('patches a zone spread of maxSkew 1 selecting the pods by their template labels, sorted', () => {
    const command = spreadPatchCommand('shop', 'checkout', { tier: 'web', app: 'checkout' });
    expect(command.startsWith('kubectl patch deployment/checkout -n shop --type strategic -p ')).toBe(true);
    expect(patchArgument(command)).toEqual({
      spec: { template: { spec: { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'checkout', tier: 'web' } } }] } } },
    });
    // The selector's labels in name order, as the command spells them.
    expect(command).toContain('"matchLabels":{"app":"checkout","tier":"web"}');
  });

  it('keeps a label value with a single quote one shell word', () => {
    const command = spreadPatchCommand('ns', 'api', { app: "it's" });
    expect(patchArgument(command)).toMatchObject({ spec: { template: { spec: { topologySpreadConstraints: [{ labelSelector: { matchLabels: { app: "it's" } } }] } } } });
  });

  it('names each Deployment and namespace of one shared label map', () => {
    const labels = Object.freeze({ app: 'web' });
    const a = spreadPatchCommand('one', 'web', labels);
    const b = spreadPatchCommand('two', 'web-canary', labels);
    expect(a).toContain('deployment/web -n one ');
    expect(b).toContain('deployment/web-canary -n two ');
    expect(patchArgument(a)).toEqual(patchArgument(b));
  });
});

describe('spreadPatchYaml', () => {
  it('lists the labels in name order, quoting values plain style would change', () => {
    const yaml = spreadPatchYaml('shop', 'checkout', { version: '1', app: 'checkout', enabled: 'true' });
    expect(yaml.split('\n').slice(-4)).toEqual(['            matchLabels:', '              app: checkout', '              enabled: "true"', '              version: "1"']);
  });

  it('says what to fill in when the template has no labels', () => {
    expect(spreadPatchYaml('ns', 'api', {}).endsWith('            matchLabels:\n              app: <your-app>')).toBe(true);
  });
});
