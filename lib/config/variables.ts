/**
 * Every environment variable zonescope reads: its kind (what it accepts, its type and default),
 * the area it belongs to, which part reads it, and what it does. docs/configuration.md is written
 * from this table (`npm run docs:config`); lib/config/config.ts builds the schema from it. Pure.
 *
 * Besides `ZONESCOPE_*`, the table holds the variables zonescope itself interprets: `KUBECONFIG`
 * and `PORT` (with zonescope's own meaning), and the standard ones its Kubernetes connection reads
 * as kubectl does (`HOME`, `KUBERNETES_SERVICE_HOST`/`_PORT`, the proxy variables; handed on as
 * they are). `HOSTNAME` is not read by zonescope (Next.js's standalone server binds it; `npm start`
 * sets it from `ZONESCOPE_HOST`), nor are `NODE_ENV` and `NEXT_RUNTIME` (set by Next.js).
 */
import path from 'node:path';

import { DEFAULT_GB_PER_ENDPOINT, DEFAULT_MEASUREMENT_WINDOW } from '../topology/analyses/traffic-volume';
import type { Kind } from './kinds';
import {
  bindAddress,
  contextList,
  duration,
  flag,
  hostEntry,
  labelName,
  list,
  matchers,
  number,
  optionalFlag,
  optionalNumber,
  originEntry,
  passThrough,
  path as pathKind,
  pathList,
  port,
  price,
  prometheusByContext,
  text,
  url,
} from './kinds';

/** The parts of zonescope that read variables. */
export type Reader = 'dashboard' | 'CLI' | 'npm start' | 'npm run demo' | 'build' | 'e2e suite' | 'benchmark' | 'image test';

/** The areas docs/configuration.md groups the variables by, in its order. */
export const GROUPS = {
  cluster: { title: 'Cluster access', intro: 'Which cluster zonescope reads and how it connects (the dashboard and `npm run analyze`).' },
  fleet: { title: 'Several clusters and the fleet', intro: 'Every kubeconfig context is a cluster of the dashboard; these settings bound how many are open and where the fleet page reads clusters it does not connect to.' },
  serving: { title: 'Serving, security and writes', intro: 'Where the dashboard listens, which names and origins it answers, and when the topology-mode toggle may write.' },
  prometheus: { title: 'Measured traffic and history (Prometheus)', intro: 'Where measured traffic and the History panels come from. Without `ZONESCOPE_PROMETHEUS_URL` traffic volumes are assumed.' },
  cost: { title: 'Cost and assumed volumes', intro: 'What a cross-zone GB costs, and the volumes of Services nothing measures (the dashboard; `npm run analyze` takes them as options).' },
  metrics: { title: 'The /metrics endpoint', intro: "What zonescope's own `/metrics` exports." },
  analysis: { title: 'Analysis and diagnostics', intro: 'How the server schedules its analysis, and what it logs.' },
  standard: { title: 'Standard variables', intro: 'Read as kubectl and client-go read them; zonescope takes them as they are, without checking them.' },
  development: { title: 'Development and tests', intro: "Read by the project's scripts (build, demo, end-to-end suite, benchmark), not by the dashboard, which still checks their values as it checks every variable's." },
} as const;

/** An area of {@link GROUPS}. */
export type Group = keyof typeof GROUPS;

/** What docs/configuration.md says of a variable. */
export interface VariableDoc {
  readonly group: Group;
  /** The parts that read it. */
  readonly readers: readonly Reader[];
  /** The default in words (`8`, `unset: …`). */
  readonly default: string;
  /** One or two sentences: what it does. */
  readonly description: string;
}

/** One variable: its kind and its documentation. */
export interface Variable<T> extends VariableDoc {
  readonly kind: Kind<T>;
}

function variable<T>(kind: Kind<T>, doc: VariableDoc): Variable<T> {
  return { kind, ...doc };
}

const SERVER: readonly Reader[] = ['dashboard'];
const SERVER_CLI: readonly Reader[] = ['dashboard', 'CLI'];
const OFF = 'off';

/** The variables, in the order docs/configuration.md lists them within each area. */
export const VARIABLES = {
  // --- Cluster access -------------------------------------------------------------------------
  KUBECONFIG: variable(pathKind({ list: true }), {
    group: 'cluster',
    readers: ['dashboard', 'CLI', 'npm start'],
    default: '`~/.kube/config` when it exists, else the in-cluster service account',
    description:
      'The kubeconfig file, or several separated by the path delimiter (merged as kubectl merges them: the first file to name a cluster, user, context or current-context wins). `npm start` makes relative paths absolute before the server changes its folder.',
  }),
  ZONESCOPE_CONTEXT: variable(text(), {
    group: 'cluster',
    readers: SERVER,
    default: "the kubeconfig's current context",
    description: 'The kubeconfig context of the default cluster, served at the usual URLs (`npm run analyze` takes `--context` instead).',
  }),
  ZONESCOPE_CONTEXTS: variable(contextList(), {
    group: 'cluster',
    readers: SERVER_CLI,
    default: 'every context of the kubeconfig',
    description:
      'The kubeconfig contexts the dashboard offers, in this order (`*` stands for the rest); a name the kubeconfig lacks is listed with that error. `npm run analyze -- --all-contexts` reads the same list.',
  }),
  ZONESCOPE_SNAPSHOT: variable(pathList(path.delimiter), {
    group: 'cluster',
    readers: ['dashboard', 'npm start'],
    default: 'unset: a live cluster',
    description:
      'Read a kubectl dump instead of a live cluster: YAML or JSON files, or folders read recursively, merged. A snapshot is one read-only cluster.',
  }),
  ZONESCOPE_SERVICEACCOUNT_DIR: variable(pathKind(), {
    group: 'cluster',
    readers: SERVER_CLI,
    default: '`/var/run/secrets/kubernetes.io/serviceaccount`',
    description: "In a Pod without a kubeconfig, the folder holding the service account's `token` (read again every minute), `ca.crt` and `namespace`.",
  }),
  ZONESCOPE_REQUEST_TIMEOUT_MS: variable(optionalNumber({ above: 0 }), {
    group: 'cluster',
    readers: SERVER_CLI,
    default: '`30000`',
    description: 'Time limit in milliseconds of one request to the API server (a list page, a patch, an access review).',
  }),
  ZONESCOPE_EXEC_TIMEOUT_MS: variable(optionalNumber({ above: 0 }), {
    group: 'cluster',
    readers: SERVER_CLI,
    default: '`30000`',
    description: 'Time limit in milliseconds of one run of a kubeconfig credential plugin (`aws eks get-token`, `kubelogin`, …).',
  }),
  ZONESCOPE_KEEPALIVE: variable(flag(true), {
    group: 'cluster',
    readers: SERVER_CLI,
    default: 'on',
    description: 'Keep connections to the API server alive (list pages share one connection, watches have their own). Off opens a new connection per request, for comparison or a middlebox that mishandles kept connections.',
  }),
  ZONESCOPE_LIST_PAGES_AHEAD: variable(optionalFlag(), {
    group: 'cluster',
    readers: SERVER_CLI,
    default: OFF,
    description: "Ask for a list's next page while the current one is parsed: a little faster against a distant API server, at the cost of peak memory.",
  }),

  // --- Several clusters and the fleet ----------------------------------------------------------
  ZONESCOPE_CLUSTER_NAME: variable(text(), {
    group: 'fleet',
    readers: SERVER_CLI,
    default: 'the cluster name inside the context (`prod` for an EKS ARN or a GKE context), else the context',
    description: 'What the header, page titles and reports call the default cluster (the other clusters keep their own names).',
  }),
  ZONESCOPE_MAX_OPEN_CLUSTERS: variable(number({ integer: true, min: 1 }, 8), {
    group: 'fleet',
    readers: SERVER,
    default: '`8`',
    description: 'Most clusters connected at once, the default cluster counted; opening one more is refused with a message, and a cluster only the fleet page opened gives its place.',
  }),
  ZONESCOPE_CLUSTER_IDLE_MINUTES: variable(number({ min: 0 }, 15), {
    group: 'fleet',
    readers: SERVER,
    default: '`15`',
    description: 'Minutes after which a cluster nobody views drops its watches (`0`: never). The default cluster always stays open.',
  }),
  ZONESCOPE_FLEET_PROMETHEUS_URL: variable(url(), {
    group: 'fleet',
    readers: SERVER,
    default: 'unset: the fleet page lists the connected clusters only',
    description:
      "The fleet's Prometheus or Thanos, which scrapes one zonescope per cluster: `/fleet` and `/api/v1/clusters` list every cluster found there, without connecting to them. User info in the URL is sent as basic auth and never shown.",
  }),
  ZONESCOPE_FLEET_PROMETHEUS_TOKEN_FILE: variable(pathKind(), {
    group: 'fleet',
    readers: SERVER,
    default: 'unset: no bearer token',
    description: "A file holding the fleet Prometheus' bearer token, read again for every query.",
  }),
  ZONESCOPE_FLEET_PROMETHEUS_CA_FILE: variable(pathKind(), {
    group: 'fleet',
    readers: SERVER,
    default: "unset: the system's CAs",
    description: "A PEM bundle that signs the fleet Prometheus' certificate.",
  }),
  ZONESCOPE_FLEET_PROMETHEUS_TIMEOUT_MS: variable(number({ integer: true, min: 1 }, 10_000), {
    group: 'fleet',
    readers: SERVER,
    default: '`10000`',
    description: 'Time limit in milliseconds of one query to the fleet Prometheus.',
  }),
  ZONESCOPE_FLEET_PROMETHEUS_MAX_RESPONSE_MIB: variable(number({ integer: true, min: 1 }, 16), {
    group: 'fleet',
    readers: SERVER,
    default: '`16`',
    description:
      "Largest answer, in MiB, read from the fleet Prometheus for one query (a few hundred bytes per cluster); a larger one is refused with a message naming the query, and the fleet keeps its last good rows. Bounds the server's memory whatever answers.",
  }),
  ZONESCOPE_FLEET_CLUSTER_LABEL: variable(labelName('cluster'), {
    group: 'fleet',
    readers: SERVER,
    default: '`cluster`',
    description: "The label that names each installation's cluster in the fleet's Prometheus (a target label of the scrape, or an external label behind Thanos).",
  }),

  // --- Serving, security and writes -----------------------------------------------------------
  ZONESCOPE_HOST: variable(bindAddress(), {
    group: 'serving',
    readers: ['dashboard', 'npm start', 'npm run demo'],
    default: '`127.0.0.1` for `npm start` and `npm run demo`; unset otherwise (every interface assumed)',
    description:
      'The address the server binds. `npm start` and `npm run demo` bind it and pass it on; started any other way (`next start`, the image\'s `server.js`) without it, zonescope assumes every interface, as Next.js does, for its Host allow-list and write policy.',
  }),
  PORT: variable(port(), {
    group: 'serving',
    readers: ['dashboard', 'npm start', 'npm run demo'],
    default: '`3000`',
    description: "The server's port (`npm start -p` wins); the Host allow-list answers loopback names on it.",
  }),
  KEEP_ALIVE_TIMEOUT: variable(number({ integer: true, above: 0 }, 65_000), {
    group: 'serving',
    readers: ['dashboard', 'npm start', 'npm run demo'],
    default: '`65000` (`npm start`, `npm run demo` and the image set it; Node.js alone keeps 5 s)',
    description:
      "Milliseconds the server keeps an idle client connection open (Next.js's standalone server reads it). Keep it above the idle timeout of whatever sits in front: a front that sends a request on a connection the server has just closed gets a reset (a load balancer answers 502, a client without retries fails). AWS's Application Load Balancer keeps idle connections 60 s by default, nginx's upstream `keepalive_timeout` is 60 s.",
  }),
  ZONESCOPE_ALLOWED_HOSTS: variable(list('host names or addresses, each name (any port) or name:port', hostEntry), {
    group: 'serving',
    readers: SERVER,
    default: 'none besides loopback',
    description:
      'Host names the dashboard answers besides `localhost`, `127.0.0.1` and `[::1]` on its own port and the hosts of `ZONESCOPE_TRUSTED_ORIGINS`; any other `Host` gets 421 (this stops DNS rebinding).',
  }),
  ZONESCOPE_TRUSTED_ORIGINS: variable(list('http(s) origins such as https://zonescope.example.com (no path)', originEntry), {
    group: 'serving',
    readers: SERVER,
    default: 'none besides loopback',
    description: 'Origins the dashboard is served at besides loopback (behind a proxy or an Ingress): writes from them pass the same-origin check, and their hosts are answered and trusted as `X-Forwarded-Host`.',
  }),
  ZONESCOPE_AUTH_PROXY: variable(flag(false), {
    group: 'serving',
    readers: SERVER,
    default: OFF,
    description:
      'An authenticating proxy (oauth2-proxy, …) is in front and sets `X-Forwarded-User` or `X-Auth-Request-User`, and `X-Zonescope-Proxy-Secret` to the secret of `ZONESCOPE_AUTH_PROXY_SECRET_FILE` (required with it): writes beyond loopback need both, and the audit log names the user. A user header without the secret counts as no user.',
  }),
  ZONESCOPE_AUTH_PROXY_SECRET_FILE: variable(pathKind(), {
    group: 'serving',
    readers: SERVER,
    default: 'unset (required by `ZONESCOPE_AUTH_PROXY`)',
    description:
      'A file (a Kubernetes Secret mounted as a volume) holding the secret the authenticating proxy sends in `X-Zonescope-Proxy-Secret`: one line of at least 16 visible ASCII characters (`openssl rand -hex 32`). Read once at start; missing, empty or too short stops the start. Never shown or logged.',
  }),
  ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES: variable(flag(false), {
    group: 'serving',
    readers: SERVER,
    default: OFF,
    description: 'Allow writes beyond loopback without an authenticating proxy: anyone who reaches the port can then change Services with zonescope\'s credentials.',
  }),
  ZONESCOPE_READ_ONLY: variable(flag(false), {
    group: 'serving',
    readers: SERVER,
    default: OFF,
    description: 'Turn every write off: the topology-mode toggle is hidden and its API refuses (the container image sets it on).',
  }),
  ZONESCOPE_READ_ONLY_CONTEXTS: variable(list('kubeconfig context names'), {
    group: 'serving',
    readers: SERVER,
    default: 'none',
    description: 'Kubeconfig contexts whose clusters are read-only; the others may still be written.',
  }),
  ZONESCOPE_WRITE_TIMEOUT_MS: variable(optionalNumber({ above: 0 }), {
    group: 'serving',
    readers: SERVER,
    default: '`10000`',
    description: 'Time limit in milliseconds of the topology-mode write and of the read that confirms it; values above 120000 count as 120000.',
  }),

  // --- Measured traffic and history (Prometheus) ---------------------------------------------------
  ZONESCOPE_PROMETHEUS_URL: variable(url(), {
    group: 'prometheus',
    readers: SERVER,
    default: 'unset: traffic volumes are assumed',
    description:
      "Base URL of the Prometheus HTTP API that holds the cluster's traffic series (Beyla or OpenTelemetry eBPF flows, cAdvisor pod bytes) and scrapes zonescope's `/metrics` for the History panels. A path prefix is kept; user info is sent as basic auth and never shown.",
  }),
  ZONESCOPE_PROMETHEUS_TOKEN_FILE: variable(pathKind(), {
    group: 'prometheus',
    readers: SERVER_CLI,
    default: 'unset: no bearer token',
    description: 'A file holding a bearer token for Prometheus, read again for every query (rotated tokens work).',
  }),
  ZONESCOPE_PROMETHEUS_CA_FILE: variable(pathKind(), {
    group: 'prometheus',
    readers: SERVER_CLI,
    default: "unset: the system's CAs",
    description: "A PEM bundle that signs Prometheus' certificate.",
  }),
  ZONESCOPE_PROMETHEUS_WINDOW: variable(duration(DEFAULT_MEASUREMENT_WINDOW), {
    group: 'prometheus',
    readers: SERVER_CLI,
    default: `\`${DEFAULT_MEASUREMENT_WINDOW}\``,
    description: 'Range of the `rate()`s (a month is the rate × 30 days). When the data reaches back less far, zonescope shortens the range to what it holds and the metrics status says so (docs/traffic.md, "The window when the data is younger").',
  }),
  ZONESCOPE_PROMETHEUS_REFRESH_SECONDS: variable(number({ min: 0.1 }, 60), {
    group: 'prometheus',
    readers: SERVER_CLI,
    default: '`60`',
    description: 'Seconds between two runs of the traffic queries, for the whole server whatever the number of pages.',
  }),
  ZONESCOPE_PROMETHEUS_TIMEOUT_MS: variable(number({ integer: true, min: 1 }, 10_000), {
    group: 'prometheus',
    readers: SERVER_CLI,
    default: '`10000`',
    description: 'Time limit in milliseconds of one Prometheus query.',
  }),
  ZONESCOPE_PROMETHEUS_MAX_STALE_SECONDS: variable(number({ min: 0 }, 600), {
    group: 'prometheus',
    readers: SERVER_CLI,
    default: '`600`',
    description: 'How long the last good measurement is still used, marked stale, while queries fail.',
  }),
  ZONESCOPE_PROMETHEUS_SELECTOR: variable(matchers('traffic'), {
    group: 'prometheus',
    readers: SERVER,
    default: 'unset: every series',
    description: 'Label matchers added to every traffic query (`cluster="prod"`): the default cluster\'s series on a Prometheus or Thanos that several clusters share.',
  }),
  ZONESCOPE_PROMETHEUS_BY_CONTEXT: variable(prometheusByContext(), {
    group: 'prometheus',
    readers: SERVER,
    default: 'unset: only the default cluster is measured',
    description:
      'Measured traffic for the other kubeconfig contexts: a JSON object such as `{"prod-eu": {"selector": "cluster=\\"prod-eu\\""}, "prod-us": {"url": "https://prometheus.us:9090", "tokenFile": "…", "caFile": "…"}}`. An entry without `url` shares `ZONESCOPE_PROMETHEUS_URL` and needs a `selector`; an entry for the default context replaces `ZONESCOPE_PROMETHEUS_URL`.',
  }),
  ZONESCOPE_HISTORY_SELECTOR: variable(matchers('history'), {
    group: 'prometheus',
    readers: SERVER,
    default: 'unset: every series',
    description: 'Label matchers added to every history query (`job="zonescope",cluster="prod"`), when that Prometheus scrapes several zonescopes.',
  }),

  // --- Cost and assumed volumes ---------------------------------------------------------------------
  ZONESCOPE_CROSS_ZONE_PRICE: variable(price(), {
    group: 'cost',
    readers: SERVER,
    default: "the price list of the cluster's cloud (AWS's, said to be assumed, when the platform is unknown)",
    description: 'What a cross-zone GB costs: `aws` ($0.01/GB leaving + $0.01/GB entering), `gcp` ($0.01/GiB once), `azure` (free), or `<USD>/<GB|GiB> x<0-2>`.',
  }),
  ZONESCOPE_PRICE_PER_GB: variable(optionalNumber({ min: 0 }), {
    group: 'cost',
    readers: SERVER,
    default: 'unset',
    description: 'The older form of `ZONESCOPE_CROSS_ZONE_PRICE=<N>/GB x2`: USD per GB in each of two directions. Not together with `ZONESCOPE_CROSS_ZONE_PRICE`.',
  }),
  ZONESCOPE_GB_PER_ENDPOINT: variable(number({ min: 0 }, DEFAULT_GB_PER_ENDPOINT), {
    group: 'cost',
    readers: SERVER,
    default: `\`${DEFAULT_GB_PER_ENDPOINT}\``,
    description: 'Assumed GB per month per ready endpoint, for Services nothing measures.',
  }),
  ZONESCOPE_GB_PER_SERVICE: variable(optionalNumber({ min: 0 }), {
    group: 'cost',
    readers: SERVER,
    default: 'unset: per endpoint',
    description: 'Assume this flat GB per month for every Service nothing measures, instead of a volume per endpoint.',
  }),
  ZONESCOPE_TRAFFIC_VOLUMES: variable(pathKind(), {
    group: 'cost',
    readers: SERVER,
    default: 'unset',
    description:
      'A JSON file `{"namespace/name": GB per month, …}` setting the volumes of Services nothing measures. It is read once; when it cannot be used, no per-Service volume is set and the traffic status says why.',
  }),

  // --- The /metrics endpoint ----------------------------------------------------------------------------
  ZONESCOPE_METRICS_MAX_SERVICES: variable(number({ integer: true, min: 0 }, 20_000), {
    group: 'metrics',
    readers: SERVER,
    default: '`20000`',
    description: 'Most Services with per-Service series; the others are counted in `zonescope_metrics_services_omitted`.',
  }),
  ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS: variable(optionalNumber({ min: 0 }), {
    group: 'metrics',
    readers: SERVER,
    default: 'unset: no budget series',
    description: 'The monthly cross-zone budget in US dollars, exported as `zonescope_cross_zone_budget_dollars_per_month` for the spend alert.',
  }),

  // --- Analysis and diagnostics ---------------------------------------------------------------------
  ZONESCOPE_ANALYSIS_SLICE_MS: variable(number({ integer: true, min: 0, max: 1000 }, 15), {
    group: 'analysis',
    readers: SERVER,
    default: '`15`',
    description: 'Milliseconds of analysis work per slice of a background pass, between other requests (`0`: one Service per slice).',
  }),
  ZONESCOPE_IDLE_GC: variable(flag(true), {
    group: 'analysis',
    readers: SERVER,
    default: 'on',
    description:
      'One full garbage collection when the server is idle and its heap in use has grown well past what the last one left (after a sync, a full analysis pass or page views of a large cluster), so resident memory falls back to what the server keeps (`0` leaves it to V8).',
  }),
  ZONESCOPE_HEAP_GROWING_PERCENT: variable(number({ integer: true, min: 0, max: 400 }, 50), {
    group: 'analysis',
    readers: SERVER,
    default: '`50`',
    description:
      "Once the first full analysis pass is done, V8 lets the heap grow to at most 1 + this/100 times what the last full collection kept before it collects again (V8's own factor reaches 4 on a machine with memory to spare, and the resident peak follows it). `0` leaves it to V8.",
  }),
  ZONESCOPE_ANALYSIS_LOG: variable(flag(false), {
    group: 'analysis',
    readers: SERVER,
    default: OFF,
    description: 'Log one line per analysis pass (Services analysed and reused, time, slices) and per traffic mapping; the benchmark reads them.',
  }),

  // --- Standard variables -----------------------------------------------------------------------------
  HOME: variable(passThrough(), { group: 'standard', readers: SERVER_CLI, default: "the user's home folder", description: 'Where the default kubeconfig `~/.kube/config` is looked for.' }),
  KUBERNETES_SERVICE_HOST: variable(passThrough(), {
    group: 'standard',
    readers: SERVER_CLI,
    default: 'set by Kubernetes in a Pod',
    description: 'With no kubeconfig, zonescope connects to the API server at this address with the Pod\'s service account.',
  }),
  KUBERNETES_SERVICE_PORT: variable(passThrough(), { group: 'standard', readers: SERVER_CLI, default: 'set by Kubernetes in a Pod', description: "The API server's port, with `KUBERNETES_SERVICE_HOST`." }),
  HTTPS_PROXY: variable(passThrough(), {
    group: 'standard',
    readers: SERVER_CLI,
    default: 'unset',
    description: "Proxy for `https://` API servers without a kubeconfig `proxy-url` (`http://`, `https://` or `socks5://`; lower case works too). Credentials in it are never shown.",
  }),
  https_proxy: variable(passThrough(), { group: 'standard', readers: SERVER_CLI, default: 'unset', description: 'As `HTTPS_PROXY`.' }),
  HTTP_PROXY: variable(passThrough(), { group: 'standard', readers: SERVER_CLI, default: 'unset', description: 'Proxy for `http://` API servers.' }),
  http_proxy: variable(passThrough(), { group: 'standard', readers: SERVER_CLI, default: 'unset', description: 'As `HTTP_PROXY`.' }),
  NO_PROXY: variable(passThrough(), {
    group: 'standard',
    readers: SERVER_CLI,
    default: 'unset',
    description: 'API servers reached without the proxy: `*`, domains (`example.com` and its subdomains, `.example.com` only subdomains), IP addresses or CIDR ranges, each with an optional `:port`. Loopback never uses a proxy.',
  }),
  no_proxy: variable(passThrough(), { group: 'standard', readers: SERVER_CLI, default: 'unset', description: 'As `NO_PROXY`.' }),

  // --- Development and tests -------------------------------------------------------------------------
  ZONESCOPE_DIST_DIR: variable(pathKind(), {
    group: 'development',
    readers: ['build', 'npm start', 'benchmark'],
    default: '`.next`',
    description: 'The build folder (next.config.js `distDir`), so builds for the end-to-end suite and the benchmark never clobber `.next`; `npm start` serves the build found there.',
  }),
  ZONESCOPE_DEMO_HOST: variable(bindAddress(), {
    group: 'development',
    readers: ['npm run demo'],
    default: '`ZONESCOPE_HOST`, else `127.0.0.1`',
    description: 'The address `npm run demo` binds the dashboard to (passed on as `ZONESCOPE_HOST`).',
  }),
  ZONESCOPE_E2E_DIST_DIR: variable(pathKind(), { group: 'development', readers: ['e2e suite'], default: '`.next-prod`', description: "The end-to-end suite's build folder." }),
  ZONESCOPE_E2E_SIM_PORT: variable(port(), {
    group: 'development',
    readers: ['e2e suite'],
    default: '`6590`',
    description: "The end-to-end suite's simulator port (its other simulated clusters follow it), to run a second suite beside a running one.",
  }),
  ZONESCOPE_E2E_APP_PORT: variable(port(), { group: 'development', readers: ['e2e suite'], default: '`3210`', description: "The port of the end-to-end suite's dashboard." }),
  ZONESCOPE_IMAGE_REBUILD_BASE: variable(flag(false), {
    group: 'development',
    readers: ['image test'],
    default: 'off',
    description: 'On: `npm run image:test` assembles the base image again even when the image store has one of the current recipe (docs/image.md).',
  }),
  ZONESCOPE_IMAGE_DEBIAN_MIRROR: variable(url(), {
    group: 'development',
    readers: ['image test'],
    default: '`http://deb.debian.org/debian`',
    description: "The Debian mirror `npm run image:test`'s debootstrap assembles the base image from (docs/image.md).",
  }),
  ZONESCOPE_E2E_PROMETHEUS_CONTROL: variable(url(), {
    group: 'development',
    readers: ['e2e suite'],
    default: 'set by the suite',
    description: "The control server of the suite's Prometheus, which specs use to stop and restart it (set by `npm run test:e2e`).",
  }),
} as const;

/** A variable's name. */
export type VariableName = keyof typeof VARIABLES;

/** Every variable's name, in table order. */
export const VARIABLE_NAMES = Object.keys(VARIABLES) as VariableName[];

/** The value a variable's kind yields. */
type ValueOf<V> = V extends Variable<infer T> ? T : never;

/** zonescope's configuration: every variable of {@link VARIABLES}, read and checked, defaults applied. */
export type Config = { readonly [K in VariableName]: ValueOf<(typeof VARIABLES)[K]> };
