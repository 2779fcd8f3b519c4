/**
 * The workload behind a Service (its Deployment and HPA), looked up and analysed when first read,
 * so that a cluster pass with a cache computes the HPA panels of only the Services that are shown.
 */
import type { FixWorkload } from '../analyses/scale-commands';
import type { HpaAnalysis } from '../analyses/hpa';
import { analyzeHpa } from '../analyses/hpa';
import { findServiceWorkload } from '../analyses/service-workload';
import { checkSpreadConstraint } from '../analyses/spread-constraint';
import type { ClusterContext } from '../model/cluster-context';
import type { EndpointSliceRecord, ServiceRecord } from '../model/cluster-model';

/**
 * The Deployment and HPA behind a Service, looked up and analysed once, when first needed. A cell
 * held by an `AnalysisCache` is rebound to each newer context while its Service's inputs are
 * unchanged (same results, and no older generation is kept alive); a cell of a replaced report
 * keeps its own context, so a holder of an old analysis still reads that generation's values.
 */
export class WorkloadCell {
  private context: ClusterContext;
  private found: ReturnType<typeof findServiceWorkload> | undefined;
  private analysed: HpaAnalysis | null | undefined;

  constructor(
    context: ClusterContext,
    private readonly service: ServiceRecord,
    private readonly slices: readonly EndpointSliceRecord[],
    private readonly donatedNow: number,
  ) {
    this.context = context;
  }

  /** Points an unevaluated cell at a newer context with the same inputs for this Service. */
  rebind(context: ClusterContext): void {
    if (this.analysed === undefined) this.context = context;
  }

  private workload(): ReturnType<typeof findServiceWorkload> {
    if (this.found === undefined) this.found = this.service.selector !== null ? findServiceWorkload(this.context, this.service, this.slices) : null;
    return this.found;
  }

  private analysis(): HpaAnalysis | null {
    if (this.analysed === undefined) {
      const workload = this.workload();
      this.analysed = workload ? analyzeHpa(this.context, workload, this.donatedNow) : null;
    }
    return this.analysed;
  }

  /** `ServiceReport.hpa`. */
  hpa(): HpaAnalysis | null {
    const analysis = this.analysis();
    return analysis?.autoscaler ? analysis : null;
  }

  /** `ServiceReport.workload`. */
  workloadOnly(): HpaAnalysis | null {
    const analysis = this.analysis();
    return analysis && !analysis.autoscaler ? analysis : null;
  }

  /** What `findFixes` needs of the workload. */
  fixWorkload(): FixWorkload | null {
    const workload = this.workload();
    return workload
      ? {
          deployment: workload.deployment.name,
          replicas: workload.deployment.replicas,
          hpa: workload.hpa ? { name: workload.hpa.name, minReplicas: workload.hpa.minReplicas, maxReplicas: workload.hpa.maxReplicas } : null,
          podLabels: workload.deployment.templateLabels,
          zoneSpread: checkSpreadConstraint(workload.deployment),
        }
      : null;
  }
}
