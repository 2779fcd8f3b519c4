/**
 * What the analysis keeps with one Service record for as long as the record lives, in one object.
 *
 * Several steps of a Service's report keep what they last worked out for its record (its key, its
 * shape key, its lints, its mechanism, its load-balancer path, its GitOps manager), each checked
 * against what it read besides the record. A pass after a Node change asks every step again for
 * every one of ~10,000 Services: kept in a WeakMap each, that was one lookup per step and Service,
 * each in a table of 10,000 entries at a random place. Kept here, it is one lookup per Service (none
 * in a cluster pass, whose order keeps each Service's memo by position), then field reads.
 *
 * Each field belongs to one module, which alone reads and writes it (typed there: this module
 * sits below them and imports none of them).
 */
import type { ServiceRecord } from './cluster-model';
import { memoOnObject } from './object-memo';

export class ServiceRecordMemo {
  /** `namespace/name` (cluster-context.ts). */
  key: string | undefined = undefined;
  /** The report shape key and what it was built from (report/report-shape.ts). */
  shapeKey: unknown = undefined;
  /** The lints and what they were found under (analyses/analyze-service.ts). */
  lints: unknown = undefined;
  /** The mechanism and what it was found under (analyses/shared-values.ts). */
  mechanism: unknown = undefined;
  /** The load-balancer path and what it was analysed on (analyses/load-balancer.ts). */
  loadBalancer: unknown = undefined;
  /** The GitOps tool that applies the Service (analyses/gitops.ts). */
  gitOps: unknown = undefined;
  /** What the rule estimates read of the record (report/cluster-analysis.ts). */
  ruleInput: unknown = undefined;
  /** The last cluster pass's report of the record, with what it was computed under (report/analysis-cache.ts). */
  report: unknown = undefined;
}

const MEMOS = new WeakMap<ServiceRecord, ServiceRecordMemo>();

/** The memo of `service`, made when first asked. */
export function serviceMemo(service: ServiceRecord): ServiceRecordMemo {
  return memoOnObject(MEMOS, service, () => new ServiceRecordMemo());
}
