/**
 * Who applies a Service and whether their next apply undoes a live change of its topology
 * annotations: Argo CD by its default label tracking with a last-applied configuration, by its
 * field managers, Flux and Helm by theirs, plain `kubectl apply`.
 */
import { describe, expect, it } from 'vitest';

import type { FieldManagerFact, ServiceOwnershipFacts } from '../model/cluster-model';
import { testService } from '../model/test-cluster';
import { gitOpsManager } from './gitops';

const MODE = 'service.kubernetes.io/topology-mode';
const lastApplied = (topologyAnnotations: Record<string, string>): ServiceOwnershipFacts['lastApplied'] => ({ readable: true, topologyAnnotations });
const manager = (name: string, operation: string, topologyKeys: string[] = []): FieldManagerFact => ({ manager: name, operation, topologyKeys });

describe('gitOpsManager', () => {
  it("Argo CD's default tracking label with a last-applied configuration declaring topology-mode: the next sync puts it back", () => {
    const found = gitOpsManager(
      testService('cart', {
        labels: { 'app.kubernetes.io/instance': 'shop' },
        annotations: { [MODE]: 'Disabled' },
        ownership: { lastApplied: lastApplied({ [MODE]: 'Auto' }), managers: null },
      }),
    );
    expect(found).toMatchObject({ tool: 'Argo CD', source: 'last-applied', declared: { [MODE]: 'Auto' }, liveChange: 'reverted' });
    expect(found?.warning).toBe(
      "Managed by Argo CD (label app.kubernetes.io/instance=shop, Argo CD's default tracking label, with a last-applied configuration): the Git source declares service.kubernetes.io/topology-mode: Auto (read from its kubectl.kubernetes.io/last-applied-configuration) — the next Argo CD sync puts it back. Make the change in Git.",
    );
  });

  it('the same Service whose last-applied configuration leaves topology-mode out: the change stays', () => {
    const found = gitOpsManager(
      testService('cart', { labels: { 'app.kubernetes.io/instance': 'shop' }, annotations: { [MODE]: 'Auto' }, ownership: { lastApplied: lastApplied({}), managers: null } }),
    );
    expect(found).toMatchObject({ tool: 'Argo CD', source: 'last-applied', declared: {}, liveChange: 'stays' });
    expect(found?.warning).toContain('no manager declares a topology annotation (read from its kubectl.kubernetes.io/last-applied-configuration) — the change stays after the next Argo CD sync.');
  });

  it('with managedFields as well, both are named and the last-applied configuration stays the source', () => {
    const found = gitOpsManager(
      testService('cart', {
        labels: { 'app.kubernetes.io/instance': 'shop' },
        annotations: { [MODE]: 'Auto' },
        ownership: { lastApplied: lastApplied({}), managers: [manager('argocd-application-controller', 'Update'), manager('kubectl-annotate', 'Update', [MODE])] },
      }),
    );
    expect(found).toMatchObject({ tool: 'Argo CD', evidence: 'field manager argocd-application-controller', source: 'last-applied', liveChange: 'stays' });
    expect(found?.warning).toContain('(read from its kubectl.kubernetes.io/last-applied-configuration and managedFields) — the change stays after the next Argo CD sync.');
  });

  it('a Helm chart rendered by Argo CD is Argo CD, not "the next helm upgrade"', () => {
    const found = gitOpsManager(
      testService('cart', {
        labels: { 'app.kubernetes.io/instance': 'shop', 'app.kubernetes.io/managed-by': 'Helm' },
        annotations: { [MODE]: 'Auto' },
        ownership: { lastApplied: lastApplied({ [MODE]: 'Auto' }), managers: null },
      }),
    );
    expect(found?.tool).toBe('Argo CD');
    expect(found?.evidence).toContain('a Helm chart rendered by Argo CD');
    expect(found?.warning).toContain('the next Argo CD sync puts it back');
  });

  it('helm install: the instance label is the release, not Argo CD; without managedFields nothing says more', () => {
    const found = gitOpsManager(
      testService('cart', {
        labels: { 'app.kubernetes.io/instance': 'shop', 'app.kubernetes.io/managed-by': 'Helm' },
        annotations: { 'meta.helm.sh/release-name': 'shop', [MODE]: 'Auto' },
      }),
    );
    expect(found).toMatchObject({ tool: 'Helm', evidence: 'annotation meta.helm.sh/release-name: shop', source: null, declared: null, liveChange: 'unknown' });
    expect(found?.warning).toBe('Managed by Helm (annotation meta.helm.sh/release-name: shop): the next helm upgrade may revert a live patch. Make the change in Git.');
  });

  it('the instance label alone (no last-applied configuration) names no tool', () => {
    expect(gitOpsManager(testService('cart', { labels: { 'app.kubernetes.io/instance': 'shop' } }))).toBeNull();
  });

  it("Argo CD's server-side apply owns topology-mode in managedFields: reverted, read from managedFields", () => {
    const found = gitOpsManager(
      testService('cart', {
        annotations: { [MODE]: 'Auto' },
        ownership: { lastApplied: null, managers: [manager('kube-controller-manager', 'Update'), manager('argocd-controller', 'Apply', [MODE])] },
      }),
    );
    expect(found).toMatchObject({ tool: 'Argo CD', evidence: 'field manager argocd-controller', source: 'managedFields', declared: { [MODE]: 'Auto' }, liveChange: 'reverted' });
    expect(found?.warning).toContain('the Git source declares service.kubernetes.io/topology-mode: Auto (read from its managedFields) — the next Argo CD sync puts it back.');
  });

  it('Flux applies the Service but a live edit (zonescope) owns the key: the change stays', () => {
    const found = gitOpsManager(
      testService('cart', {
        labels: { 'kustomize.toolkit.fluxcd.io/name': 'apps' },
        annotations: { [MODE]: 'Auto' },
        ownership: { lastApplied: null, managers: [manager('kustomize-controller', 'Apply'), manager('zonescope', 'Update', [MODE])] },
      }),
    );
    expect(found).toMatchObject({ tool: 'Flux', evidence: 'field manager kustomize-controller', liveChange: 'stays' });
    expect(found?.warning).toContain("the change stays after Flux's next reconciliation");
  });

  it("Helm's field manager owns the key: the chart declares it", () => {
    const found = gitOpsManager(testService('cart', { annotations: { [MODE]: 'Auto' }, ownership: { lastApplied: null, managers: [manager('helm', 'Update', [MODE])] } }));
    expect(found?.warning).toBe(
      'Managed by Helm (field manager helm): the chart declares service.kubernetes.io/topology-mode: Auto (read from its managedFields) — the next helm upgrade puts it back. Make the change in Git.',
    );
  });

  it('plain kubectl apply of a manifest declaring the key', () => {
    const found = gitOpsManager(testService('cart', { annotations: { [MODE]: 'Auto' }, ownership: { lastApplied: lastApplied({ [MODE]: 'Auto' }), managers: [manager('kubectl-client-side-apply', 'Update', [MODE])] } }));
    expect(found).toMatchObject({ tool: 'kubectl apply', liveChange: 'reverted', source: 'last-applied' });
    expect(found?.warning).toBe(
      'Applied with kubectl apply (field manager kubectl-client-side-apply): the applied manifest declares service.kubernetes.io/topology-mode: Auto (read from its kubectl.kubernetes.io/last-applied-configuration) — the next kubectl apply of that manifest puts it back. Make the change in that manifest.',
    );
  });

  it('kubectl apply of a manifest without the key, annotated live afterwards: no warning', () => {
    expect(gitOpsManager(testService('cart', { annotations: { [MODE]: 'Auto' }, ownership: { lastApplied: lastApplied({}), managers: [manager('kubectl-client-side-apply', 'Update'), manager('kubectl-annotate', 'Update', [MODE])] } }))).toBeNull();
  });

  it('an unreadable last-applied configuration says nothing about the source', () => {
    const found = gitOpsManager(testService('cart', { labels: { 'app.kubernetes.io/instance': 'shop' }, ownership: { lastApplied: { readable: false }, managers: null } }));
    expect(found).toMatchObject({ tool: 'Argo CD', liveChange: 'unknown', source: null });
  });
});
