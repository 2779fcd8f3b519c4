/**
 * A measurement moved by the model: the cross-zone share of a measured client zone → endpoint zone
 * matrix, and the model's change between two scenarios (now → after a sync, with Auto, without
 * hints, after a fix) applied to the measurement, so that measured and modelled shares are never
 * mixed.
 */
import { matrixSums } from './traffic';
import type { ValueByZone } from '../upstream/types';

/** Client zone → endpoint zone → value. */
export type ZoneMatrix = Readonly<ValueByZone<ValueByZone<number>>>;


/** Cross-zone share of a measured matrix (GB per month): cross-zone cells over all cells; 0 when empty. */
export function measuredCrossZoneFraction(matrix: ZoneMatrix): number {
  const { total, cross } = matrixSums(matrix);
  return total > 0 ? cross / total : 0;
}

/** Σ of each row of a matrix. */
function rowSum(row: Readonly<ValueByZone<number>> | undefined): number {
  let total = 0;
  if (row) for (const zone in row) total += row[zone] as number;
  return total;
}

/** Whether two fraction matrices are the same up to rounding. */
function sameMatrix(a: ZoneMatrix, b: ZoneMatrix): boolean {
  if (a === b) return true;
  const clients = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const client of clients) {
    const ra = a[client] ?? {};
    const rb = b[client] ?? {};
    for (const zone of new Set([...Object.keys(ra), ...Object.keys(rb)])) if (Math.abs((ra[zone] ?? 0) - (rb[zone] ?? 0)) > 1e-12) return false;
  }
  return true;
}

/**
 * The model's change applied to a measurement: `measured` (client zone → endpoint zone, GB per
 * month) moved by the difference between the model's `after` and `now` fractions. Per client zone
 * the row keeps its measured total R and each cell gets `measured + R × (after/Σafter − now/Σnow)`
 * (the model's row shares, so a zone's client share is the measurement's); cells that would turn
 * negative are cut to 0 and the row is scaled back to R. A model that does not change (`after`
 * equals `now`) returns `measured` itself: a sync that changes nothing changes nothing measured.
 * Rows the model does not have keep their measurement.
 */
export function applyModelChange(measured: ZoneMatrix, now: ZoneMatrix, after: ZoneMatrix): ZoneMatrix {
  if (sameMatrix(now, after)) return measured;
  const out: ValueByZone<ValueByZone<number>> = {};
  for (const client in measured) {
    const row = measured[client] as ValueByZone<number>;
    const total = rowSum(row);
    const nowRow = now[client];
    const afterRow = after[client];
    const nowTotal = rowSum(nowRow);
    const afterTotal = rowSum(afterRow);
    if (total <= 0 || nowRow === undefined || afterRow === undefined || nowTotal <= 0 || afterTotal <= 0) {
      out[client] = row;
      continue;
    }
    const projected: ValueByZone<number> = {};
    let kept = 0;
    for (const zone of new Set([...Object.keys(row), ...Object.keys(nowRow), ...Object.keys(afterRow)])) {
      const value = (row[zone] ?? 0) + total * ((afterRow[zone] ?? 0) / afterTotal - (nowRow[zone] ?? 0) / nowTotal);
      if (value > 0) {
        projected[zone] = value;
        kept += value;
      }
    }
    if (kept > 0 && Math.abs(kept - total) > 1e-9 * total) for (const zone in projected) projected[zone] = ((projected[zone] as number) * total) / kept;
    out[client] = projected;
  }
  return out;
}
