/**
 * Where the server's resident memory peaks: its process tree's RSS sampled every `intervalMs`
 * (and at every phase change), the highest sample kept per phase of the run. VmHWM says how high
 * the peak was; this says during what. A sample misses spikes shorter than the interval, so the
 * per-phase maxima can stay under VmHWM.
 */
import { treeRssMiB } from './process-tree';

/** The highest RSS sample of one phase. */
export interface PhaseRss {
  readonly phase: string;
  readonly maxMiB: number;
  readonly samples: number;
}

export class RssPhases {
  private phase: string;
  private readonly phases = new Map<string, { maxMiB: number; samples: number }>();
  private readonly timer: ReturnType<typeof setInterval>;

  /** Starts sampling `pid`'s tree in phase `first`. */
  constructor(
    private readonly pid: number,
    first: string,
    intervalMs = 250,
    private readonly rssMiB: (pid: number) => number = (p) => treeRssMiB(p).total,
  ) {
    this.phase = first;
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref?.();
  }

  /** Samples once more in the phase ending, then counts the next samples for `phase`. */
  enter(phase: string): void {
    this.sample();
    this.phase = phase;
    this.sample();
  }

  /** One sample now, in the current phase. */
  sample(): void {
    const rss = this.rssMiB(this.pid);
    if (rss <= 0) return;
    const known = this.phases.get(this.phase);
    if (known === undefined) this.phases.set(this.phase, { maxMiB: rss, samples: 1 });
    else {
      known.maxMiB = Math.max(known.maxMiB, rss);
      known.samples += 1;
    }
  }

  /** Stops sampling. */
  stop(): void {
    clearInterval(this.timer);
  }

  /** The phases in the order they began, each with its highest sample. */
  summary(): PhaseRss[] {
    return [...this.phases].map(([phase, { maxMiB, samples }]) => ({ phase, maxMiB: Math.round(maxMiB * 10) / 10, samples }));
  }

  /** One line for the log: `phase max MiB, …`, the highest marked. */
  line(): string {
    const phases = this.summary();
    const top = Math.max(0, ...phases.map((p) => p.maxMiB));
    return phases.map((p) => `${p.phase} ${p.maxMiB}${p.maxMiB === top ? ' (highest)' : ''}`).join(', ');
  }
}
