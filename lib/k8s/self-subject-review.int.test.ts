/**
 * SelfSubjectReview against the simulator over real HTTP: the identity the simulator's RBAC knows,
 * the fallback to v1beta1, "the current identity" when the server serves none, and the RBAC rule
 * snippets for types zonescope could not read.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import { createConnection } from './connection';
import type { KubeConnection } from './connection';
import { clusterRoleSnippet, CURRENT_IDENTITY, identityLabel, readGrantFor, reviewSelf, ruleLine, whoAmI } from './self-subject-review';

const sims: Simulator[] = [];

afterEach(async () => {
  await Promise.all(sims.splice(0).map((sim) => sim.stop()));
});

async function connected(): Promise<{ sim: Simulator; connection: KubeConnection }> {
  const sim = await startSimulator({ port: 0, log: () => undefined });
  sims.push(sim);
  const result = createConnection({ kubeconfigText: sim.kubeconfig(), requestTimeoutMs: 2000 });
  if (!result.ok) throw new Error(result.message);
  return { sim, connection: result.connection };
}

describe('SelfSubjectReview', () => {
  it('names the service account the simulator authenticates, with its groups, even when RBAC allows nothing else', async () => {
    const { sim, connection } = await connected();
    sim.faults.setRbac({ allow: [] });
    const identity = await reviewSelf(connection);
    expect(identity).toEqual({
      ok: true,
      username: 'system:serviceaccount:zonescope:zonescope',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:zonescope', 'system:authenticated'],
      apiVersion: 'authentication.k8s.io/v1',
    });
    sim.faults.setRbac({ user: 'alice@example.com' });
    expect(identityLabel(await reviewSelf(connection))).toBe('alice@example.com');
  });

  it('is listed by the simulator\'s discovery, as on a 1.28+ server', async () => {
    const { connection } = await connected();
    const response = await connection.request({ path: '/apis/authentication.k8s.io/v1' });
    expect(response.status).toBe(200);
    const list = JSON.parse(response.body) as { resources: { name: string; kind: string; verbs: string[] }[] };
    expect(list.resources).toEqual([expect.objectContaining({ name: 'selfsubjectreviews', kind: 'SelfSubjectReview', verbs: ['create'] })]);
  });

  it('falls back to v1beta1 when v1 is not served', async () => {
    const { sim, connection } = await connected();
    sim.faults.add({ type: 'error', code: 404, verbs: ['create'], resources: ['selfsubjectreviews'], count: 1 });
    const identity = await reviewSelf(connection);
    expect(identity).toMatchObject({ ok: true, username: 'system:serviceaccount:zonescope:zonescope', apiVersion: 'authentication.k8s.io/v1beta1' });
  });

  it('says "the current identity" when no version is served, and caches the answer per connection', async () => {
    const { sim, connection } = await connected();
    sim.faults.add({ type: 'error', code: 404, verbs: ['create'], resources: ['selfsubjectreviews'] });
    const identity = await reviewSelf(connection);
    expect(identity.ok).toBe(false);
    if (!identity.ok) expect(identity.error.message).toContain('does not serve SelfSubjectReview');
    expect(identityLabel(identity)).toBe(CURRENT_IDENTITY);
    sim.faults.clear();
    const first = whoAmI(connection);
    expect(whoAmI(connection)).toBe(first);
    expect(identityLabel(await first)).toBe('system:serviceaccount:zonescope:zonescope');
  });
});

describe('RBAC rules for unreadable types', () => {
  it('names the API group and plural of each type as RBAC does', () => {
    expect(readGrantFor('nodes')).toEqual({ resource: 'nodes', apiGroup: '', plural: 'nodes', namespace: null });
    expect(readGrantFor('hpas')).toEqual({ resource: 'hpas', apiGroup: 'autoscaling', plural: 'horizontalpodautoscalers', namespace: null });
    expect(readGrantFor('configmaps')).toMatchObject({ apiGroup: '', plural: 'configmaps', namespace: 'kube-system' });
    expect(ruleLine([readGrantFor('endpointslices')])).toBe('apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["get", "list", "watch"]');
  });

  it('builds a ClusterRole with one rule per API group and the binding for a service account', () => {
    const { yaml, bind } = clusterRoleSnippet(['nodes', 'pods', 'hpas'], { ok: true, username: 'system:serviceaccount:zonescope:zonescope', groups: [], apiVersion: 'authentication.k8s.io/v1' });
    expect(yaml).toBe(
      [
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: ClusterRole',
        'metadata:',
        '  name: zonescope-read-extra',
        'rules:',
        '- apiGroups: [""]',
        '  resources: ["nodes", "pods"]',
        '  verbs: ["get", "list", "watch"]',
        '- apiGroups: ["autoscaling"]',
        '  resources: ["horizontalpodautoscalers"]',
        '  verbs: ["get", "list", "watch"]',
      ].join('\n'),
    );
    expect(bind).toEqual(['kubectl create clusterrolebinding zonescope-read-extra --clusterrole=zonescope-read-extra --serviceaccount=zonescope:zonescope']);
    expect(clusterRoleSnippet(['nodes'], null).bind).toEqual(['kubectl create clusterrolebinding zonescope-read-extra --clusterrole=zonescope-read-extra --user=<the user zonescope runs as>']);
  });

  it('grants the kube-system ConfigMaps and DaemonSets with a Role there, not cluster-wide', () => {
    const { yaml, bind } = clusterRoleSnippet(['configmaps', 'daemonsets'], { ok: true, username: 'alice@example.com', groups: [], apiVersion: 'authentication.k8s.io/v1' });
    expect(yaml).toBe(
      [
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: Role',
        'metadata:',
        '  name: zonescope-read-extra',
        '  namespace: kube-system',
        'rules:',
        '- apiGroups: [""]',
        '  resources: ["configmaps"]',
        '  verbs: ["get", "list", "watch"]',
        '- apiGroups: ["apps"]',
        '  resources: ["daemonsets"]',
        '  verbs: ["get", "list", "watch"]',
      ].join('\n'),
    );
    expect(yaml).not.toContain('ClusterRole');
    expect(bind).toEqual(['kubectl create rolebinding zonescope-read-extra -n kube-system --role=zonescope-read-extra --user=alice@example.com']);
  });
});
