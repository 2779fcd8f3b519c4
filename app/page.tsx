import { MINIMUM_FACTOR, OVERLOAD_THRESHOLD } from '@/lib/topology/constants';
import { MAX_MODELLED_MINOR, MIN_MODELLED_MINOR, formatKubeMinor } from '@/lib/topology/version';

export default function HomePage() {
  return (
    <section aria-labelledby="shell-title" className="max-w-3xl space-y-4">
      <h1 id="shell-title" className="text-2xl font-semibold">
        zonescope
      </h1>
      <p>
        zonescope recomputes what the Kubernetes EndpointSlice controller and kube-proxy do with Topology Aware Routing, and shows
        why traffic stays in its zone or crosses zones.
      </p>
      <div role="status" className="rounded-md border border-amber-300 bg-amber-50 p-4 text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">
        <p className="font-medium">No cluster is connected yet.</p>
        <p className="mt-1 text-sm">
          This build contains the topology engine only. Cluster access, the simulated cluster and the dashboard views are still being
          built; nothing on this page is cluster data.
        </p>
      </div>
      <h2 className="pt-4 text-lg font-semibold">What the engine reproduces</h2>
      <ul className="list-disc space-y-1 pl-6 text-sm">
        <li>
          Kubernetes releases {formatKubeMinor(MIN_MODELLED_MINOR)} to {formatKubeMinor(MAX_MODELLED_MINOR)}, including their feature-gate defaults.
        </li>
        <li>
          Per-zone minimum endpoints: <code>ceil(endpoints × zone CPU ratio × {MINIMUM_FACTOR})</code>, i.e. 1 / (1 + {OVERLOAD_THRESHOLD}).
        </li>
        <li>The <code>Auto</code> heuristic, <code>spec.trafficDistribution</code>, and kube-proxy&apos;s endpoint selection per node.</li>
      </ul>
    </section>
  );
}
