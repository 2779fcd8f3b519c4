/**
 * The Service view: one Service's report with every detail panel (address types, diff entries,
 * donated endpoints, minimum table, endpoints, the four traffic matrices, events). With a cache,
 * the detail is kept while the Service's inputs and events are unchanged.
 */
import type { AnalysisOptions } from '../model/analysis-options';
import { serviceKey } from '../model/cluster-context';
import type { ClusterIndex, EventRecord, ServiceRecord } from '../model/cluster-model';
import type { ServiceDetail } from './analysis-schema';
import type { PreparedAnalysis } from './prepared-analysis';
import { prepareAnalysis } from './prepared-analysis';
import { computeService } from './service-computation';

function timestampOf(event: EventRecord): string {
  return event.lastTimestamp ?? event.firstTimestamp ?? '';
}

/** The Service view's detail: the report plus the panels. */
function serviceDetail(prepared: PreparedAnalysis, service: ServiceRecord): ServiceDetail {
  const { report, needsAttention, analysis, traffic } = computeService(prepared, service, true);
  const events = [...(prepared.context.index.eventsByService.get(serviceKey(service.namespace, service.name)) ?? [])].sort((a, b) =>
    timestampOf(a) < timestampOf(b) ? -1 : timestampOf(a) > timestampOf(b) ? 1 : 0,
  );
  return {
    ...report,
    needsAttention,
    byAddressType: analysis.byAddressType,
    diffEntries: analysis.diff.entries,
    donatedEndpoints: analysis.expected.donated,
    minimumTable: analysis.minimumTable,
    endpoints: analysis.endpoints,
    trafficMatrix: traffic,
    events,
  };
}

/** Analyzes one Service of a prepared cluster with every detail panel; `null` when it does not exist. */
export function analyzeServiceIn(prepared: PreparedAnalysis, namespace: string, name: string): ServiceDetail | null {
  const { context, cache } = prepared;
  const key = serviceKey(namespace, name);
  const service = context.index.servicesByKey.get(key);
  if (!service) return null;
  if (!cache) return serviceDetail(prepared, service);
  cache.sync(context);
  const slices = context.index.slicesByService.get(key);
  const events = context.index.eventsByService.get(key);
  const cached = cache.detail<ServiceDetail>(key, service, slices, events);
  if (cached) return cached;
  const detail = serviceDetail(prepared, service);
  cache.storeDetail(key, service, slices, events, detail);
  return detail;
}

/**
 * Analyzes one Service with every detail panel (the analyze JSON's per-Service object plus what the
 * Service view needs); `null` when the Service does not exist.
 */
export function analyzeService(index: ClusterIndex, namespace: string, name: string, options: AnalysisOptions = {}): ServiceDetail | null {
  return analyzeServiceIn(prepareAnalysis(index, options), namespace, name);
}
