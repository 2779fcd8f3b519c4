/**
 * How far V8 lets the heap grow between two full collections once the server has synced.
 *
 * After a full collection V8 sets the next one's limit at the live size times a growing factor. On
 * a machine with memory to spare (a maximum heap of 2 GiB or more: every default on a 64-bit host
 * with a few GiB) that factor goes up to 4 (V8's `MemoryController::MaxGrowingFactor`,
 * nodejs/node deps/v8/src/heap/heap-controller.cc). A server that keeps ~330 MB live at realistic L
 * may so reach well over twice that in garbage before V8 collects: page views and analysis passes
 * pile up until the limit, and the resident peak (what a Pod's memory limit counts) follows.
 *
 * During the cold sync that headroom is what keeps collections few while the live size grows; once
 * the first full analysis pass is done the live size is what it will stay near, and the factor is
 * fixed at 1 + `ZONESCOPE_HEAP_GROWING_PERCENT`/100 (default 50; `0` leaves V8's own) through V8's `--heap-growing-percent`, which V8 reads at every collection
 * (`GrowingFactor` in the same file) and which Node lets a running process set
 * (`v8.setFlagsFromString`; Node does not freeze V8's flags after start).
 */
import v8 from 'node:v8';

const APPLIED = Symbol.for('zonescope.heapGrowingPercent');

/**
 * Fixes V8's heap growing factor at 1 + `percent`/100 from the next collection on, once per
 * process (whichever copy of this module asks first); `0` does nothing. Returns whether it set it.
 */
export function limitHeapGrowth(percent: number, setFlags: (flags: string) => void = (flags) => v8.setFlagsFromString(flags)): boolean {
  const holder = globalThis as unknown as { [APPLIED]?: number };
  if (!Number.isInteger(percent) || percent <= 0 || holder[APPLIED] !== undefined) return false;
  setFlags(`--heap-growing-percent=${percent}`);
  holder[APPLIED] = percent;
  return true;
}
