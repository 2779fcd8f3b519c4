import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path, { join } from 'node:path';

import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';

import { configFromEnv } from '../lib/config/config';
import { checkHost, isBoundBeyondLoopback, unauthenticatedWritesReason } from '../lib/server/exposure';
import { AUTH_PROXY_SECRET_HEADER } from '../lib/server/auth-proxy';
import { RESOURCES } from '../lib/k8s/resources';

type Obj = { kind: string; metadata: { name: string; namespace?: string }; [key: string]: unknown };
type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };
type Probe = { httpGet: { path: string; httpHeaders?: { name: string; value: string }[] } };

function load(dir: string): Obj[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS() as Obj));
}

const base = load('deploy/kubernetes/base');
const writer = load('deploy/kubernetes/writer');
const named = (objects: Obj[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);

/** `group/resource` → verbs granted, expanded from rules. */
function grants(rules: Rule[]): Map<string, Set<string>> {
  const map = new Map<string, Set<string>>();
  for (const rule of rules) for (const group of rule.apiGroups) for (const resource of rule.resources) {
    const key = `${group}/${resource}`;
    const verbs = map.get(key) ?? new Set<string>();
    for (const verb of rule.verbs) verbs.add(verb);
    map.set(key, verbs);
  }
  return map;
}

/** What lib/k8s reads: `group/resource` and whether it is read in kube-system only. */
function readByZonescope(): { key: string; kubeSystem: boolean }[] {
  return Object.values(RESOURCES).map((descriptor) => {
    const path = descriptor.paths[0] ?? '';
    const match = /^\/(?:api\/v1|apis\/([^/]+)\/[^/]+)\/(?:namespaces\/[^/]+\/)?([^/]+)$/.exec(path);
    if (!match) throw new Error(`unexpected path ${path}`);
    return { key: `${match[1] ?? ''}/${match[2] ?? ''}`, kubeSystem: descriptor.namespace === 'kube-system' };
  });
}

describe('deployment manifests', () => {
  it('parse, and every object has a kind and a name', () => {
    for (const object of [...base, ...writer]) {
      expect(typeof object.kind).toBe('string');
      expect(object.metadata.name).toMatch(/^[a-z0-9.-]+$/);
    }
  });

  it('the read-only ClusterRole grants list/watch on exactly the cluster-wide types zonescope reads (get only on services)', () => {
    const role = named(base, 'ClusterRole', 'zonescope-read') as unknown as { rules: Rule[] };
    const granted = grants(role.rules.filter((rule) => rule.resourceNames === undefined));
    const expected = readByZonescope().filter((r) => !r.kubeSystem).map((r) => r.key);
    expect([...granted.keys()].sort()).toEqual([...new Set(expected)].sort());
    for (const [key, verbs] of granted) {
      expect([...verbs].sort()).toEqual(key === '/services' ? ['get', 'list', 'watch'] : ['list', 'watch']);
    }
  });

  it('the read-only ClusterRole lets zonescope get the kube-system Namespace (the cluster identity a re-list checks) and no other', () => {
    const role = named(base, 'ClusterRole', 'zonescope-read') as unknown as { rules: Rule[] };
    expect(role.rules.filter((rule) => rule.resourceNames !== undefined)).toEqual([
      { apiGroups: [''], resources: ['namespaces'], resourceNames: ['kube-system'], verbs: ['get'] },
    ]);
  });

  it('kube-system ConfigMaps and DaemonSets are read through a Role in kube-system only', () => {
    const role = named(base, 'Role', 'zonescope-read-dataplane') as unknown as { metadata: { namespace: string }; rules: Rule[] };
    expect(role.metadata.namespace).toBe('kube-system');
    const expected = readByZonescope().filter((r) => r.kubeSystem).map((r) => r.key);
    expect([...grants(role.rules).keys()].sort()).toEqual(expected.sort());
    for (const verbs of grants(role.rules).values()) expect([...verbs].sort()).toEqual(['list', 'watch']);
  });

  it('the opt-in writer grants only patch on services and the SelfSubjectAccessReview', () => {
    const role = named(writer, 'ClusterRole', 'zonescope-topology-mode-writer') as unknown as { rules: Rule[] };
    const granted = grants(role.rules);
    expect(Object.fromEntries([...granted].map(([k, v]) => [k, [...v]]))).toEqual({
      '/services': ['patch'],
      'authorization.k8s.io/selfsubjectaccessreviews': ['create'],
    });
    expect(base.some((o) => o.kind.endsWith('Role') && JSON.stringify(o).includes('"patch"'))).toBe(false);
  });

  it('the Deployment runs non-root on a read-only root filesystem, read-only by default, with probes', () => {
    const deployment = named(base, 'Deployment', 'zonescope') as unknown as {
      spec: { template: { spec: { securityContext: Record<string, unknown>; containers: Record<string, unknown>[] } } };
    };
    const pod = deployment.spec.template.spec;
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    const container = pod.containers[0] as {
      securityContext: Record<string, unknown>;
      env: { name: string; value: string }[];
      readinessProbe: { httpGet: { path: string } };
      livenessProbe: { httpGet: { path: string } };
      image: string;
    };
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(container.env.find((e) => e.name === 'ZONESCOPE_READ_ONLY')?.value).toBe('1');
    expect(container.readinessProbe.httpGet.path).toBe('/api/health/ready');
    expect(existsSync('app/api/health/ready/route.ts')).toBe(true);
    expect(existsSync('app/api/health/live/route.ts')).toBe(true);
    expect(container.image).not.toMatch(/:latest$/);
  });

  it('beyond loopback in the Pod: says so, lists the Service names and loopback as hosts, probes send an allowed Host', () => {
    const deployment = named(base, 'Deployment', 'zonescope') as unknown as {
      spec: { template: { spec: { containers: { env: { name: string; value: string }[]; readinessProbe: Probe; livenessProbe: Probe; startupProbe: Probe }[] } } };
    };
    const container = deployment.spec.template.spec.containers[0];
    if (container === undefined) throw new Error('no container');
    // The Pod's environment reads as the server reads it at start (a value it cannot use would stop it).
    const env = configFromEnv({ ...Object.fromEntries(container.env.map((e) => [e.name, e.value])), PORT: '3000' });
    // The writer variant patches env/0.
    expect(container.env[0]?.name).toBe('ZONESCOPE_READ_ONLY');
    expect(isBoundBeyondLoopback(env)).toBe(true);
    for (const host of ['zonescope.zonescope.svc.cluster.local', 'zonescope.zonescope.svc', 'zonescope.zonescope', 'localhost:3000', 'localhost:8080', '127.0.0.1:8080']) {
      expect(checkHost(host, env).ok, host).toBe(true);
    }
    expect(checkHost('evil.example', env).ok).toBe(false);
    for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
      const host = probe.httpGet.httpHeaders?.find((h) => h.name.toLowerCase() === 'host')?.value ?? '10.1.2.3:3000';
      expect(checkHost(host, env).ok, probe.httpGet.path).toBe(true);
    }
    // Reads only: writes are refused beyond loopback without the proxy or the opt-in.
    expect(unauthenticatedWritesReason(env)).toMatch(/ZONESCOPE_AUTH_PROXY=1/);
    const dockerfile = readFileSync('deploy/Dockerfile', 'utf8');
    expect(dockerfile).toMatch(/HOSTNAME=0\.0\.0\.0/);
    expect(dockerfile).toMatch(/ZONESCOPE_HOST=0\.0\.0\.0/);
  });

  it('the writer variant opts in to writes without an auth proxy only behind a deny-all-ingress NetworkPolicy', () => {
    const kustomization = readFileSync('deploy/kubernetes/writer/kustomization.yaml', 'utf8');
    expect(kustomization).toContain('networkpolicy.yaml');
    expect(kustomization).toMatch(/name: ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES\n\s+value: "1"/);
    const policy = named(writer, 'NetworkPolicy', 'zonescope-deny-ingress') as unknown as { metadata: { namespace: string }; spec: { podSelector: { matchLabels: Record<string, string> }; policyTypes: string[]; ingress: unknown[] } };
    expect(policy.metadata.namespace).toBe('zonescope');
    expect(policy.spec.podSelector.matchLabels).toEqual({ 'app.kubernetes.io/name': 'zonescope' });
    expect(policy.spec.policyTypes).toEqual(['Ingress']);
    expect(policy.spec.ingress).toEqual([]);
    expect(unauthenticatedWritesReason(configFromEnv({ ZONESCOPE_HOST: '0.0.0.0', ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES: '1' }))).toBeNull();
  });

  it('the Service is ClusterIP (no public exposure)', () => {
    expect((named(base, 'Service', 'zonescope') as unknown as { spec: { type: string } }).spec.type).toBe('ClusterIP');
  });

  it('the Dockerfile runs the standalone server as a non-root user', () => {
    const dockerfile = readFileSync('deploy/Dockerfile', 'utf8');
    expect(dockerfile).toMatch(/^USER 65532:65532$/m);
    expect(dockerfile).toContain('.next/standalone');
    expect(readFileSync('next.config.js', 'utf8')).toMatch(/output:\s*'standalone'/);
  });

  // No Docker engine runs here, so the image is checked "in principle": what `docker build` would need.
  it('the Dockerfile builds in principle: a current LTS base image and every COPY source present', () => {
    const dockerfile = readFileSync('deploy/Dockerfile', 'utf8');
    const bases = [...dockerfile.matchAll(/^FROM node:(\d+)[-\w.]*/gm)].map((m) => Number(m[1]));
    expect(bases.length).toBeGreaterThan(0);
    // Even-numbered releases become LTS; 20 reached end of life in April 2026.
    for (const major of bases) expect(major % 2 === 0 && major >= 24, `node:${major}`).toBe(true);
    const ignored = readFileSync('.dockerignore', 'utf8').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
    for (const match of dockerfile.matchAll(/^COPY (?!--from=)(?:--chown=\S+ )?(.+) \S+$/gm)) {
      // From the build context: the repository itself.
      for (const source of (match[1] ?? '').split(/\s+/)) {
        if (source === '.') continue;
        expect(existsSync(source), `COPY ${source}`).toBe(true);
        expect(ignored, `COPY ${source} is excluded by .dockerignore`).not.toContain(source);
      }
    }
    for (const match of dockerfile.matchAll(/^COPY --from=build (?:--chown=\S+ )?\/src\/(\S+) \S+$/gm)) {
      // From the build stage: the repository after `next build`, whose output lives under .next/.
      const source = match[1] ?? '';
      if (!source.startsWith('.next/')) expect(existsSync(source), `COPY --from=build /src/${source}`).toBe(true);
    }
    expect(existsSync('public/favicon.ico')).toBe(true);
  });

  it.runIf(existsSync('/usr/bin/kubectl'))('kustomize renders both variants; the writer variant turns the toggle on', () => {
    const render = (dir: string) => execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
    expect(render('deploy/kubernetes/base')).toContain('value: "1"');
    const writerOut = render('deploy/kubernetes/writer');
    expect(writerOut).toMatch(/name: ZONESCOPE_READ_ONLY\n\s+value: "0"/);
    expect(writerOut).toContain('zonescope-topology-mode-writer');
    expect(writerOut).toMatch(/name: ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES\n\s+value: "1"/);
    expect(writerOut).toContain('kind: NetworkPolicy');
  });

  it.runIf(existsSync('/usr/bin/kubectl'))('the auth-proxy variant: oauth2-proxy sends the user and the shared secret zonescope reads, and is the only Pod admitted', () => {
    type Container = { name: string; env?: { name: string; value?: string }[]; volumeMounts?: { name: string; mountPath: string }[] };
    type PodSpec = { containers: Container[]; volumes: { name: string; secret?: { secretName: string } }[] };
    const rendered = parseAllDocuments(execFileSync('kubectl', ['kustomize', 'deploy/kubernetes/auth-proxy'], { encoding: 'utf8' })).map((d) => d.toJS() as Obj);
    const pod = (name: string) => (named(rendered, 'Deployment', name) as unknown as { spec: { template: { metadata: { labels: Record<string, string> }; spec: PodSpec } } }).spec.template;
    /** The Secret a container reads `file` from. */
    const secretOf = (spec: PodSpec, container: Container, file: string): string | undefined => {
      const mount = container.volumeMounts?.find((m) => file.startsWith(`${m.mountPath}/`));
      return spec.volumes.find((v) => v.name === mount?.name)?.secret?.secretName;
    };
    // zonescope: the proxy declared with its secret file, the opt-in without a proxy off; its environment reads as at start.
    const zonescope = pod('zonescope').spec;
    const container = zonescope.containers[0] as Container;
    const env = configFromEnv({ ...Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? ''])), PORT: '3000' });
    expect(env).toMatchObject({ ZONESCOPE_AUTH_PROXY: true, ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES: false, ZONESCOPE_READ_ONLY: false });
    expect(unauthenticatedWritesReason(env)).toBeNull();
    const secretFile = env.ZONESCOPE_AUTH_PROXY_SECRET_FILE ?? '';
    expect(secretOf(zonescope, container, secretFile)).toBe('zonescope-proxy-secret');
    // oauth2-proxy: injects the user and the secret, from the same Secret and key.
    const proxy = pod('oauth2-proxy');
    const config = named(rendered, 'ConfigMap', 'oauth2-proxy-alpha-config') as unknown as { data: Record<string, string> };
    const alpha = parseAllDocuments(config.data['alpha-config.yaml'] ?? '')[0]?.toJS() as {
      injectRequestHeaders: { name: string; values: { claimSource?: { claim: string }; secretSource?: { fromFile: string } }[] }[];
      upstreamConfig: { upstreams: { uri: string }[] };
    };
    const injected = new Map(alpha.injectRequestHeaders.map((h) => [h.name.toLowerCase(), h.values[0]]));
    expect(injected.get('x-forwarded-user')?.claimSource?.claim).toBe('email');
    const fromFile = injected.get(AUTH_PROXY_SECRET_HEADER)?.secretSource?.fromFile ?? '';
    expect(secretOf(proxy.spec, proxy.spec.containers[0] as Container, fromFile)).toBe('zonescope-proxy-secret');
    expect(path.basename(fromFile)).toBe(path.basename(secretFile));
    expect(alpha.upstreamConfig.upstreams.map((u) => u.uri)).toEqual(['http://zonescope.zonescope.svc.cluster.local']);
    // Only the proxy's Pods may reach zonescope's port.
    const policy = named(rendered, 'NetworkPolicy', 'zonescope-deny-ingress') as unknown as { spec: { ingress: { from: { podSelector: { matchLabels: Record<string, string> } }[]; ports: { port: number }[] }[] } };
    expect(policy.spec.ingress).toHaveLength(1);
    expect(policy.spec.ingress[0]?.from.map((f) => f.podSelector.matchLabels)).toEqual([proxy.metadata.labels]);
    expect(policy.spec.ingress[0]?.ports.map((p) => p.port)).toEqual([3000]);
    expect(proxy.metadata.labels['app.kubernetes.io/name']).not.toBe('zonescope');
  });});

describe('monitoring manifests (deploy/kubernetes/monitoring)', () => {
  const monitoring = load('deploy/kubernetes/monitoring');
  type Selector = { matchLabels: Record<string, string> };
  type Monitor = { apiVersion: string; metadata: { namespace: string }; spec: { jobLabel: string; namespaceSelector: { matchNames: string[] }; selector: Selector } };
  type Endpoint = { port: string; path: string; interval: string };
  const service = named(base, 'Service', 'zonescope') as unknown as { metadata: { namespace: string; labels: Record<string, string> }; spec: { ports: { name: string }[] } };
  const deployment = named(base, 'Deployment', 'zonescope') as unknown as {
    spec: { template: { metadata: { labels: Record<string, string> }; spec: { containers: { ports: { name: string }[] }[] } } };
  };

  it('the kustomization applies the ServiceMonitor, the PrometheusRule and the Grafana dashboard; the PodMonitor is the documented alternative', () => {
    const kustomization = parseAllDocuments(readFileSync('deploy/kubernetes/monitoring/kustomization.yaml', 'utf8'))[0]?.toJS() as { resources: string[] };
    expect(kustomization.resources).toEqual(['servicemonitor.yaml', 'prometheusrule.yaml', '../../grafana']);
    expect(readFileSync('deploy/kubernetes/monitoring/kustomization.yaml', 'utf8')).toMatch(/podmonitor\.yaml/);
    expect(monitoring.map((o) => o.kind).sort()).toEqual(['PodMonitor', 'PrometheusRule', 'ServiceMonitor']);
    for (const object of monitoring) {
      expect((object as unknown as { apiVersion: string }).apiVersion).toBe('monitoring.coreos.com/v1');
      expect(object.metadata.namespace).toBe(service.metadata.namespace);
    }
  });

  it('the ServiceMonitor selects the base Service by its labels and scrapes its named port at /metrics every 30 s, job "zonescope"', () => {
    const monitor = named(monitoring, 'ServiceMonitor', 'zonescope') as unknown as Monitor & { spec: { endpoints: Endpoint[] } };
    expect(Object.keys(monitor.spec.selector.matchLabels).length).toBeGreaterThan(0);
    for (const [key, value] of Object.entries(monitor.spec.selector.matchLabels)) expect(service.metadata.labels[key], key).toBe(value);
    expect(monitor.spec.namespaceSelector.matchNames).toEqual([service.metadata.namespace]);
    expect(monitor.spec.endpoints).toHaveLength(1);
    const endpoint = monitor.spec.endpoints[0] as Endpoint;
    expect(service.spec.ports.map((p) => p.name)).toContain(endpoint.port);
    expect(endpoint).toMatchObject({ path: '/metrics', interval: '30s' });
    // The job label ZonescopeMetricsAbsent matches on comes from this Service label.
    expect(service.metadata.labels[monitor.spec.jobLabel]).toBe('zonescope');
    expect(readFileSync('deploy/prometheus/zonescope-rules.yaml', 'utf8')).toContain('absent(zonescope_build_info{job="zonescope"})');
  });

  it('the PodMonitor selects the Deployment\'s Pods on their named container port, with the same path, interval and job', () => {
    const monitor = named(monitoring, 'PodMonitor', 'zonescope') as unknown as Monitor & { spec: { podMetricsEndpoints: Endpoint[] } };
    const pod = deployment.spec.template;
    for (const [key, value] of Object.entries(monitor.spec.selector.matchLabels)) expect(pod.metadata.labels[key], key).toBe(value);
    const endpoint = monitor.spec.podMetricsEndpoints[0] as Endpoint;
    expect(pod.spec.containers.flatMap((c) => c.ports.map((p) => p.name))).toContain(endpoint.port);
    expect(endpoint).toMatchObject({ path: '/metrics', interval: '30s' });
    expect(pod.metadata.labels[monitor.spec.jobLabel]).toBe('zonescope');
  });

  it('both monitors keep zonescope\'s own namespace/service labels instead of the target\'s (else they become exported_namespace/exported_service)', () => {
    type Relabeled = { honorLabels?: boolean; relabelings?: { action: string; regex: string }[] };
    const serviceMonitor = named(monitoring, 'ServiceMonitor', 'zonescope') as unknown as { spec: { endpoints: Relabeled[] } };
    const podMonitor = named(monitoring, 'PodMonitor', 'zonescope') as unknown as { spec: { podMetricsEndpoints: Relabeled[] } };
    for (const endpoint of [...serviceMonitor.spec.endpoints, ...podMonitor.spec.podMetricsEndpoints]) {
      expect(endpoint.honorLabels).toBe(true);
      const drop = endpoint.relabelings?.find((r) => r.action === 'labeldrop');
      expect(drop, 'a labeldrop relabeling').toBeDefined();
      const regex = new RegExp(`^(?:${drop?.regex ?? ''})$`);
      for (const label of ['namespace', 'service', 'pod']) expect(regex.test(label), label).toBe(true);
      for (const label of ['job', 'instance']) expect(regex.test(label), label).toBe(false);
    }
  });

  it('the PrometheusRule holds exactly the groups of deploy/prometheus/zonescope-rules.yaml', () => {
    const rule = named(monitoring, 'PrometheusRule', 'zonescope') as unknown as { spec: { groups: unknown } };
    const rulesFile = parseAllDocuments(readFileSync('deploy/prometheus/zonescope-rules.yaml', 'utf8'))[0]?.toJS() as { groups: unknown };
    expect(rule.spec.groups, 'run `npx tsx deploy/prometheus/prometheus-rule.ts` after changing the rules file').toEqual(rulesFile.groups);
  });

  it.runIf(existsSync('/usr/bin/kubectl'))('kustomize renders the monitoring objects', () => {
    const out = execFileSync('kubectl', ['kustomize', 'deploy/kubernetes/monitoring'], { encoding: 'utf8' });
    expect(out).toContain('kind: ServiceMonitor');
    expect(out).toContain('kind: PrometheusRule');
    expect(out).not.toContain('kind: PodMonitor');
  });

  it.runIf(existsSync('/usr/bin/kubectl'))('the Grafana dashboard ConfigMap carries deploy/grafana/zonescope.json as is, labelled for the Grafana sidecar', () => {
    const rendered = parseAllDocuments(execFileSync('kubectl', ['kustomize', 'deploy/kubernetes/monitoring'], { encoding: 'utf8' })).map((d) => d.toJS() as Obj);
    const configMaps = rendered.filter((o) => o.kind === 'ConfigMap');
    expect(configMaps.map((o) => o.metadata.name)).toEqual(['zonescope-grafana-dashboard']);
    const configMap = configMaps[0] as unknown as { metadata: { namespace: string; labels: Record<string, string> }; data: Record<string, string> };
    // The grafana chart's sidecar matches the label `grafana_dashboard`; kube-prometheus-stack also wants the value "1".
    expect(configMap.metadata.labels).toMatchObject({ grafana_dashboard: '1', 'app.kubernetes.io/name': 'zonescope' });
    expect(configMap.metadata.namespace).toBe(service.metadata.namespace);
    expect(Object.keys(configMap.data)).toEqual(['zonescope.json']);
    expect(configMap.data['zonescope.json']).toBe(readFileSync('deploy/grafana/zonescope.json', 'utf8'));
    // A client-side `kubectl apply` keeps a copy in an annotation, which may not exceed 256 KiB.
    expect(Buffer.byteLength(configMap.data['zonescope.json'] ?? '')).toBeLessThan(200_000);
  });
});
