/**
 * When the whole-cluster analysis runs, and which one readers get.
 *
 * - The first pass starts as soon as the first sync completes, and runs in slices of about
 *   {@link DEFAULT_SLICE_MS} of work with a macrotask (`setImmediate`) between them, so health
 *   checks, `/metrics` and static requests keep answering. Until it is done nothing is served: the
 *   dashboard reports "syncing" with the pass's progress.
 * - A later change that makes the per-Service cache start over (a node added, removed or
 *   relabelled, a new server version, a dataplane change, a newly forbidden type: whatever gives
 *   the preparation new cluster-wide inputs) runs the same way in the background while readers
 *   keep the previous generation's analysis; the new one replaces it in one assignment when it is
 *   complete, so no reader ever sees half of each.
 * - Any other change (an EndpointSlice, a pod, a Deployment) re-analyses the few Services it
 *   affects synchronously on the next read, as before, so it is visible at once.
 *
 * One pass at a time. A newer generation arriving mid-pass restarts the pass on the newest one
 * (what the cache already computed for it is kept); a node change arriving when the pass is past
 * half-way lets it finish first, then starts the next one at once, so a cluster whose nodes change
 * every few seconds still gets an analysis.
 *
 * No server-only imports: unit-tested in analysis-scheduler.test.ts; lib/server/analysis.ts holds
 * the process-wide instance.
 */
import type { Config } from '../config/variables';
import { getConfig } from '../config/process-config';
import type { ResourceStatus } from '../k8s/informer/status';
import type { AnalysisOptions } from '../topology/model/analysis-options';
import type { ClusterIndex } from '../topology/model/cluster-model';
import { AnalysisCache } from '../topology/report/analysis-cache';
import type { ClusterAnalysis } from '../topology/report/analysis-schema';
import type { ClusterPassProgress } from '../topology/report/cluster-analysis';
import { analyzeClusterIn, analyzeClusterSteps } from '../topology/report/cluster-analysis';
import type { PreparedAnalysis } from '../topology/report/prepared-analysis';
import { prepareAnalysis, withAnalysisCache } from '../topology/report/prepared-analysis';

/** Work per slice of a sliced pass, in milliseconds. */
export const DEFAULT_SLICE_MS = 15;

/** `ZONESCOPE_ANALYSIS_SLICE_MS`: a whole number of milliseconds from 0 to 1000 (the configuration's default is {@link DEFAULT_SLICE_MS}). */
export function sliceBudgetMs(config: Pick<Config, 'ZONESCOPE_ANALYSIS_SLICE_MS'> = getConfig()): number {
  return config.ZONESCOPE_ANALYSIS_SLICE_MS;
}

/** What the scheduler reads of a cluster source. */
export interface SchedulerSource {
  /** Incremented on every change of the records. */
  readonly generation: number;
  isSynced(): boolean;
  index(): ClusterIndex;
  statuses(): readonly ResourceStatus[];
  onChange(listener: () => void): () => void;
}

/** One generation's preparation and, once computed, its analysis. */
export interface AnalysisMemo {
  readonly generation: number;
  /** The types the source could not read when prepared (`,`-joined). */
  readonly unreadable: string;
  readonly prepared: PreparedAnalysis;
  analysis: ClusterAnalysis | null;
}

/** Why a background re-analysis runs. */
export type ReanalysisReason = 'node' | 'version' | 'dataplane' | 'permissions' | 'settings';

/** The words of a {@link ReanalysisReason} in "Re-analysing after …". */
export const REASON_WORDS: Readonly<Record<ReanalysisReason, string>> = {
  node: 'a node change',
  version: 'a server version change',
  dataplane: 'a dataplane change',
  permissions: 'a permissions change',
  settings: 'a settings change',
};

/** A sliced pass in progress. */
export interface PassState {
  /** `first`: nothing is served yet; `reanalysis`: readers get the previous analysis meanwhile. */
  readonly kind: 'first' | 'reanalysis';
  /** What started a re-analysis (`null` for the first pass). */
  readonly reason: ReanalysisReason | null;
  /** The generation being analysed. */
  readonly generation: number;
  /** The generation readers get meanwhile, `null` during the first pass. */
  readonly shownGeneration: number | null;
  /** Services with a report so far (computed or kept), and in the pass. */
  readonly done: number;
  readonly total: number;
  /** Services computed so far in this pass. */
  readonly computed: number;
  /** When the pass began (epoch ms, `Date.now()`). */
  readonly startedAt: number;
  /** Times it moved on to a newer generation. */
  readonly restarts: number;
}

/** Figures of a finished pass (the `[zonescope] analysis:` log line). */
export interface PassReport {
  readonly generation: number;
  readonly services: number;
  readonly computed: number;
  readonly reused: number;
  readonly full: boolean;
  /** `sync`: computed by a read; `sliced`: in slices between other work. */
  readonly mode: 'sync' | 'sliced';
  /** Work time (sum of slices), milliseconds. */
  readonly workMs: number;
  /** From the pass's start to its result being served, milliseconds. */
  readonly wallMs: number;
  readonly slices: number;
  /** The longest slice, milliseconds. */
  readonly longestSliceMs: number;
  readonly restarts: number;
}

/** Configuration of an {@link AnalysisScheduler}. */
export interface SchedulerConfig {
  /** The analysis options besides the unreadable types (volume settings). */
  readonly options: () => AnalysisOptions;
  /** Work per slice (default {@link DEFAULT_SLICE_MS}); 0 runs one Service per slice. */
  readonly sliceMs?: number;
  /** Monotonic clock in milliseconds (default `performance.now`). */
  readonly now?: () => number;
  /** Runs `task` after pending I/O (default `setImmediate`). */
  readonly defer?: (task: () => void) => void;
  /** Called with every finished pass. */
  readonly onPass?: (report: PassReport) => void;
  /** Called with every new newest memo (the data layer mirrors it for diagnostics). */
  readonly onMemo?: (memo: AnalysisMemo) => void;
}

interface Pass {
  kind: 'first' | 'reanalysis';
  reason: ReanalysisReason | null;
  memo: AnalysisMemo;
  steps: Generator<ClusterPassProgress, ClusterAnalysis, void>;
  progress: ClusterPassProgress;
  readonly startedAt: number;
  readonly startedAtEpoch: number;
  restarts: number;
  workMs: number;
  slices: number;
  longestSliceMs: number;
}

function unreadableOf(statuses: readonly ResourceStatus[]): string[] {
  return statuses.filter((s) => s.health === 'forbidden').map((s) => s.id);
}

/** Whether the per-Service cache would start over going from `from` to `to` (see `prepareAnalysis`: a preparation is reused only then). */
export function startsOver(from: PreparedAnalysis, to: PreparedAnalysis): boolean {
  return from.inputsKey !== to.inputsKey || from.context.index.snapshot.nodes !== to.context.index.snapshot.nodes;
}

/** Why going from the analysed `from` to the index `to` (with these unreadable types) starts the cache over, `null` when it does not. */
export function reasonFor(from: AnalysisMemo, to: ClusterIndex, unreadable: string): ReanalysisReason | null {
  const before = from.prepared.context.index.snapshot;
  const after = to.snapshot;
  if (before.nodes !== after.nodes) return 'node';
  if (JSON.stringify(before.version) !== JSON.stringify(after.version)) return 'version';
  if (JSON.stringify([before.proxy, before.cni]) !== JSON.stringify([after.proxy, after.cni])) return 'dataplane';
  if (from.unreadable !== unreadable) return 'permissions';
  return null;
}

/** Schedules the cluster passes of one source (see the module comment). */
export class AnalysisScheduler {
  private memo: AnalysisMemo | null = null;
  private published: AnalysisMemo | null = null;
  private pass: Pass | null = null;
  private scheduled = false;
  private stopped = false;
  /** The published preparation with a cache of its own, for Service details read during a pass. */
  private side: { readonly of: AnalysisMemo; readonly prepared: PreparedAnalysis } | null = null;
  private readonly unsubscribe: () => void;
  private readonly sliceMs: number;
  private readonly now: () => number;
  private readonly defer: (task: () => void) => void;

  constructor(
    private readonly source: SchedulerSource,
    private readonly config: SchedulerConfig,
  ) {
    this.sliceMs = Math.max(0, config.sliceMs ?? DEFAULT_SLICE_MS);
    this.now = config.now ?? (() => performance.now());
    this.defer = config.defer ?? ((task) => void setImmediate(task));
    this.unsubscribe = source.onChange(() => this.settle());
    this.settle();
  }

  /** Stops scheduling (a replaced source); what was published stays readable. */
  stop(): void {
    this.stopped = true;
    this.pass = null;
    this.unsubscribe();
  }

  /** Whether an analysis is served (the first pass is done and the source is synced). */
  isServing(): boolean {
    return this.published !== null && this.source.isSynced();
  }

  /** The pass running in slices, `null` when none. */
  passState(): PassState | null {
    const pass = this.pass;
    if (pass === null) return null;
    return {
      kind: pass.kind,
      reason: pass.reason,
      generation: pass.memo.generation,
      shownGeneration: this.published?.generation ?? null,
      done: pass.progress.done,
      total: pass.progress.total,
      computed: pass.progress.computed,
      startedAt: pass.startedAtEpoch,
      restarts: pass.restarts,
    };
  }

  /**
   * The generation of what readers get: the published analysis's while a re-analysis runs, else
   * the source's (the next read brings the analysis up to it synchronously).
   */
  servedGeneration(): number {
    return this.pass !== null && this.published !== null ? this.published.generation : this.source.generation;
  }

  /**
   * Starts a sliced pass when one is due (the first, or a change that starts the cache over), so
   * that what a read then gets, and {@link servedGeneration}, already account for it. Cheap when
   * none is due: no preparation, no analysis.
   */
  settle(): void {
    if (this.stopped || this.pass !== null || !this.source.isSynced()) return;
    const published = this.published;
    if (published === null) {
      this.start(this.latest(), 'first', null);
      return;
    }
    if (published.generation === this.source.generation && published.unreadable === unreadableOf(this.source.statuses()).join(',')) return;
    const reason = reasonFor(published, this.source.index(), unreadableOf(this.source.statuses()).join(','));
    if (reason !== null) this.start(this.latest(), 'reanalysis', reason);
  }

  /**
   * The analysis readers get now: `null` until the first pass is done (or while the source is not
   * synced); during a re-analysis the previous one; otherwise the current generation's, brought
   * up to date synchronously (few Services change between generations that do not start over).
   */
  analysis(): ClusterAnalysis | null {
    if (!this.source.isSynced()) return null;
    this.settle();
    if (this.pass !== null) return this.published?.analysis ?? null;
    const published = this.published;
    if (published === null) return null;
    const memo = this.latest();
    if (memo.analysis === null && startsOver(published.prepared, memo.prepared)) {
      // New cluster-wide inputs that settle() has no name for (options): a background pass all the same.
      this.start(memo, 'reanalysis', reasonFor(published, memo.prepared.context.index, memo.unreadable) ?? 'settings');
      return published.analysis;
    }
    if (memo.analysis === null) {
      const startedAt = this.now();
      memo.analysis = analyzeClusterIn(memo.prepared);
      const ms = this.now() - startedAt;
      this.publish(memo, { mode: 'sync', workMs: ms, wallMs: ms, slices: 1, longestSliceMs: ms, restarts: 0 });
    }
    return memo.analysis;
  }

  /**
   * The preparation that goes with what readers get (per-cluster facts, Service details): the
   * current generation's, or during a re-analysis the published one's with a cache of its own
   * (Service details then never touch the cache the pass is filling).
   */
  prepared(): PreparedAnalysis {
    this.settle();
    const published = this.published;
    if (this.pass === null || published === null) return this.latest().prepared;
    if (this.side?.of !== published) this.side = { of: published, prepared: withAnalysisCache(published.prepared, new AnalysisCache()) };
    return this.side.prepared;
  }

  /** The newest preparation, memoised per generation and unreadable types (reusing the previous one's per-cluster work). */
  latest(): AnalysisMemo {
    const unreadableIds = unreadableOf(this.source.statuses());
    const unreadable = unreadableIds.join(',');
    const memo = this.memo;
    if (memo !== null && memo.generation === this.source.generation && memo.unreadable === unreadable) return memo;
    const generation = this.source.generation;
    const index = this.source.index();
    const options: AnalysisOptions = { ...this.config.options(), unreadable: unreadableIds as AnalysisOptions['unreadable'] };
    const prepared = memo !== null ? prepareAnalysis(index, options, memo.prepared) : withAnalysisCache(prepareAnalysis(index, options), new AnalysisCache());
    const next: AnalysisMemo = { generation, unreadable, prepared, analysis: null };
    this.memo = next;
    this.config.onMemo?.(next);
    return next;
  }

  private start(memo: AnalysisMemo, kind: 'first' | 'reanalysis', reason: ReanalysisReason | null): void {
    this.pass = {
      kind,
      reason,
      memo,
      steps: analyzeClusterSteps(memo.prepared),
      progress: { done: 0, total: memo.prepared.context.index.snapshot.services.length, computed: 0 },
      startedAt: this.now(),
      startedAtEpoch: Date.now(),
      restarts: 0,
      workMs: 0,
      slices: 0,
      longestSliceMs: 0,
    };
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.defer(() => {
      this.scheduled = false;
      this.slice();
    });
  }

  /** One slice of the pass: move to the newest generation if one arrived, then work until the budget is spent. */
  private slice(): void {
    const pass = this.pass;
    if (pass === null || this.stopped) return;
    const began = this.now();
    if (this.source.isSynced() && (this.source.generation !== pass.memo.generation || this.unreadableChanged(pass.memo))) this.retarget(pass);
    const deadline = began + this.sliceMs;
    for (;;) {
      const step = pass.steps.next();
      if (step.done === true) {
        pass.memo.analysis = step.value;
        this.account(pass, began);
        this.pass = null;
        this.publish(pass.memo, {
          mode: 'sliced',
          workMs: pass.workMs,
          wallMs: this.now() - pass.startedAt,
          slices: pass.slices,
          longestSliceMs: pass.longestSliceMs,
          restarts: pass.restarts,
        });
        // A change that arrived while it finished: the next pass follows at once.
        this.settle();
        return;
      }
      pass.progress = step.value;
      if (this.now() >= deadline) break;
    }
    this.account(pass, began);
    this.schedule();
  }

  private unreadableChanged(memo: AnalysisMemo): boolean {
    return memo.unreadable !== unreadableOf(this.source.statuses()).join(',');
  }

  private retarget(pass: Pass): void {
    const next = this.latest();
    if (next === pass.memo) return;
    // Another cache-resetting change past half-way: finish this one first (settle() then starts the next).
    if (startsOver(pass.memo.prepared, next.prepared) && pass.progress.done * 2 > pass.progress.total) return;
    const reason = this.published === null ? null : (reasonFor(this.published, next.prepared.context.index, next.unreadable) ?? pass.reason);
    pass.memo = next;
    pass.reason = reason;
    pass.steps = analyzeClusterSteps(next.prepared);
    pass.progress = { done: 0, total: next.prepared.context.index.snapshot.services.length, computed: 0 };
    pass.restarts++;
  }

  private account(pass: Pass, began: number): void {
    const ms = this.now() - began;
    pass.workMs += ms;
    pass.slices++;
    if (ms > pass.longestSliceMs) pass.longestSliceMs = ms;
  }

  private publish(memo: AnalysisMemo, figures: Omit<PassReport, 'generation' | 'services' | 'computed' | 'reused' | 'full'>): void {
    this.published = memo;
    this.side = null;
    const run = memo.prepared.cache?.lastRun;
    this.config.onPass?.({
      generation: memo.generation,
      services: run?.services ?? memo.analysis?.services.length ?? 0,
      computed: run?.computed ?? 0,
      reused: run?.reused ?? 0,
      full: run?.full ?? false,
      ...figures,
    });
  }
}
