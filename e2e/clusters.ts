/**
 * The clusters of the e2e kubeconfig (`.sim/e2e-kubeconfig`, written by e2e/sim-server.ts): the
 * dashboard sees four contexts, served by three simulators in one process and one closed port.
 *
 * | context                                                | what answers                  | why |
 * |--------------------------------------------------------|-------------------------------|-----|
 * | `zonescope-sim` (current-context: the default cluster) | eks-demo on {@link SIM_PORT}  | every spec but fleet.spec.ts reads only this one |
 * | `ipvs-lab`                                             | ipvs on SIM_PORT + 1          | a second healthy cluster with another scenario (kube-proxy IPVS) |
 * | `decommissioned`                                       | nothing: SIM_PORT + 3 is closed | an unreachable cluster |
 * | `arn:aws:eks:eu-west-1:123456789012:cluster/restricted` | cilium-kpr on SIM_PORT + 2, RBAC denies Nodes | a reachable cluster that forbids one resource type; an EKS ARN, so its URL id is a slug, not the context |
 *
 * The forbidding cluster is a fourth context rather than the second cluster, so the second one
 * stays a complete cluster (zones known, the toggle allowed) for switching and toggling.
 * Only the default simulator is reset between tests (e2e/fixtures.ts); the others are never
 * written to except by fleet.spec.ts, which puts back what it changes.
 *
 * Ports can be moved (to run a second suite beside a running one): `ZONESCOPE_E2E_SIM_PORT` (the
 * default simulator; the others follow it) and `ZONESCOPE_E2E_APP_PORT` (the dashboard).
 */
import type { RbacConfigInput } from '../sim/faults/rbac';

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1024 || port > 65_532) throw new Error(`${name} must be a port between 1024 and 65532, not ${JSON.stringify(raw)}`);
  return port;
}

/** The default cluster's simulator (eks-demo). */
export const SIM_PORT = portFromEnv('ZONESCOPE_E2E_SIM_PORT', 6590);
/** The dashboard under test. */
export const APP_PORT = portFromEnv('ZONESCOPE_E2E_APP_PORT', 3210);

/** One context of the e2e kubeconfig. */
export interface E2eCluster {
  /** The kubeconfig context. */
  readonly context: string;
  /** What the header and the fleet page call it (the cluster name inside the context). */
  readonly displayName: string;
  readonly port: number;
  /** The `fixtures/` scenario served, or `null`: nothing listens on the port. */
  readonly scenario: string | null;
  /** The simulator's RBAC at start (and after every reset). */
  readonly rbac?: RbacConfigInput;
  /** Watch BOOKMARK interval (see e2e/sim-server.ts); the simulator's default when absent. */
  readonly bookmarkIntervalMs?: number;
}

/** The default cluster: every spec's cluster. */
export const DEFAULT_CLUSTER: E2eCluster = { context: 'zonescope-sim', displayName: 'zonescope-sim', port: SIM_PORT, scenario: 'eks-demo', bookmarkIntervalMs: 1_000 };
/** A second healthy cluster with another scenario. */
export const IPVS_CLUSTER: E2eCluster = { context: 'ipvs-lab', displayName: 'ipvs-lab', port: SIM_PORT + 1, scenario: 'ipvs' };
/** Nothing answers: its port is closed. */
export const DOWN_CLUSTER: E2eCluster = { context: 'decommissioned', displayName: 'decommissioned', port: SIM_PORT + 3, scenario: null };
/** Reachable, but the dashboard's user may not read Nodes. */
export const RESTRICTED_CLUSTER: E2eCluster = {
  context: 'arn:aws:eks:eu-west-1:123456789012:cluster/restricted',
  displayName: 'restricted',
  port: SIM_PORT + 2,
  scenario: 'cilium-kpr',
  rbac: { deny: [{ verbs: ['get', 'list', 'watch'], resources: ['nodes'] }] },
};

/** Every context, in kubeconfig order (the default first). */
export const E2E_CLUSTERS: readonly E2eCluster[] = [DEFAULT_CLUSTER, IPVS_CLUSTER, DOWN_CLUSTER, RESTRICTED_CLUSTER];

/** Files of one suite; a suite on other ports has its own, so two never overwrite each other's. */
const SUFFIX = SIM_PORT === 6590 ? '' : `-${SIM_PORT}`;
/** The kubeconfig e2e/sim-server.ts writes and the dashboard reads. */
export const E2E_KUBECONFIG = `.sim/e2e-kubeconfig${SUFFIX}`;
/** The dashboard's stdout during the suite (playwright.config.ts): specs read its audit lines. */
export const DASHBOARD_LOG = `.sim/e2e-dashboard${SUFFIX}.log`;
