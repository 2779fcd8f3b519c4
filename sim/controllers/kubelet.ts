/**
 * The simulator's kubelet, condensed: a Pod placed on a node is Running and Ready at once, with
 * a pod IP of its own (10.100.0.0/10 upwards, continuing after the highest one a loaded scenario
 * uses); a Pod no node could take stays Pending, Unschedulable.
 */
import { obj, str } from '../../lib/k8s/wire-to-record/json';
import type { ReadonlyKubeObject } from '../types';

/** Pod IPs handed out in order, after those already in use. */
export class PodIPs {
  private counter = 0;

  /** Notes a pod's IP, so new ones come after it. */
  observe(pod: ReadonlyKubeObject): void {
    const ip = str(obj(pod.status).podIP);
    const parts = ip?.split('.').map(Number);
    if (parts && parts.length === 4 && parts[0] === 10 && (parts[1] ?? 0) >= 100) {
      this.counter = Math.max(this.counter, (((parts[1] ?? 100) - 100) << 16) + ((parts[2] ?? 0) << 8) + (parts[3] ?? 0));
    }
  }

  /** The next free pod IP. */
  next(): string {
    this.counter++;
    const n = this.counter;
    return `10.${100 + ((n >> 16) & 0x3f)}.${(n >> 8) & 0xff}.${n & 0xff}`;
  }
}

/**
 * The status of a new Pod: Running and Ready since `now` with `podIP` when it was placed on a
 * node (`podIP` then given), else Pending, Unschedulable.
 */
export function newPodStatus(now: string, podIP: string | null): Record<string, unknown> {
  return podIP !== null
    ? {
        phase: 'Running',
        podIP,
        startTime: now,
        conditions: [
          { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
          { type: 'Initialized', status: 'True', lastTransitionTime: now },
          { type: 'ContainersReady', status: 'True', lastTransitionTime: now },
          { type: 'Ready', status: 'True', lastTransitionTime: now },
        ],
      }
    : { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', lastTransitionTime: now }] };
}
