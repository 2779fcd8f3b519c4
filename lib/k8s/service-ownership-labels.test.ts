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

  it('keeps from last-applied and managedFields only who declares the topology annotations, not the blobs', () => {
    const lastApplied = JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'cart', namespace: 'shop', annotations: { 'service.kubernetes.io/topology-mode': 'Auto', 'team/owner': 'checkout' } }, spec: { ports: [{ port: 80 }] } });
    const service = projectService({
      metadata: {
        name: 'cart',
        namespace: 'shop',
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': `${lastApplied}\n`, 'service.kubernetes.io/topology-mode': 'Disabled' },
        managedFields: [
          { manager: 'argocd-application-controller', operation: 'Update', apiVersion: 'v1', time: '2026-11-30T08:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {}, 'f:service.kubernetes.io/topology-mode': {} } }, 'f:spec': { 'f:ports': {} } } },
          { manager: 'zonescope', operation: 'Update', apiVersion: 'v1', time: '2026-12-01T08:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:x': {} } } } },
        ],
      },
      spec: { selector: { app: 'cart' }, ports: [{ port: 80 }] },
    });
    expect(service.ownership).toEqual({
      lastApplied: { readable: true, topologyAnnotations: { 'service.kubernetes.io/topology-mode': 'Auto' } },
      managers: [
        { manager: 'argocd-application-controller', operation: 'Update', topologyKeys: ['service.kubernetes.io/topology-mode'] },
        { manager: 'zonescope', operation: 'Update', topologyKeys: [] },
      ],
    });
    expect(JSON.stringify(service)).not.toContain('team/owner');
    expect(gitOpsManager(service)).toMatchObject({ tool: 'Argo CD', evidence: 'field manager argocd-application-controller', source: 'last-applied', liveChange: 'reverted' });
  });

  it('neither last-applied nor managedFields: no ownership field, so Services keep sharing their shape', () => {
    expect(projectService({ metadata: { name: 'a', namespace: 'b' }, spec: {} }).ownership).toBeUndefined();
  });
});
