/** The Service labels that say who applies it (Argo CD, Flux, Helm) are kept on the record; others are not. */
import { describe, expect, it } from 'vitest';

import { gitOpsManager } from '../topology/analyses/gitops';
import { projectService } from './wire-to-record/service';

describe('projectService: ownership labels', () => {
  it('keeps the Argo CD, Flux and Helm labels only, so the toggle can warn about a revert', () => {
    const service = projectService({
      metadata: { name: 'cart', namespace: 'shop', resourceVersion: '7', labels: { 'argocd.argoproj.io/instance': 'shop', team: 'checkout', 'app.kubernetes.io/managed-by': 'Helm' } },
      spec: { selector: { app: 'cart' }, ports: [{ port: 80 }] },
    });
    expect(service.labels).toEqual({ 'argocd.argoproj.io/instance': 'shop', 'app.kubernetes.io/managed-by': 'Helm' });
    expect(gitOpsManager(service)?.warning).toBe('Managed by Argo CD (label argocd.argoproj.io/instance=shop): the next Argo CD sync may revert a live patch. Make the change in Git.');
  });

  it('no ownership label: no labels field at all', () => {
    const service = projectService({ metadata: { name: 'a', namespace: 'b', labels: { team: 'x' } }, spec: { selector: { app: 'a' } } });
    expect(service.labels).toBeUndefined();
    expect(gitOpsManager(service)).toBeNull();
  });
});
