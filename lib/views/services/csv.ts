/**
 * The Services export as CSV (`GET /api/v1/services?format=csv`): one line per Service with the
 * table's columns and one ready-endpoints column per zone.
 */
import 'server-only';

import { UNKNOWN_ZONE } from '../../topology/analyses/traffic';
import { toCsv } from '../../shared/csv';
import type { ServiceRow } from './rows';
import { round6 } from './rows';

/**
 * The rows as CSV, one line per Service: the table's columns, one `ready <zone>` column per zone
 * (`zones`, e.g. {@link rowZones}), fractions as numbers 0–1, the volume (GB per month, with its
 * source) and the cross-zone cost (USD per month), empty when a Service has no traffic figures;
 * the measured share's difference from the prediction (points, empty unless measured with flows)
 * and the HPA column (its state, range and the counts of the range where hints are off, `3 4 5`).
 */
export function servicesCsv(rows: readonly ServiceRow[], zones: readonly string[]): string {
  const header = [
    'namespace',
    'name',
    'type',
    'mechanism',
    'hints expected',
    'hints on slices',
    'attention',
    'reason',
    'ready endpoints',
    ...zones.map((zone) => `ready ${zone === UNKNOWN_ZONE ? '(no zone)' : zone}`),
    'cross-zone fraction',
    'cross-zone fraction if Auto',
    'GB per month',
    'volume source',
    'cross-zone USD per month',
    'measured cross-zone fraction',
    'measured minus predicted (points)',
    'HPA scale-down',
    'HPA minReplicas',
    'HPA maxReplicas',
    'hints off at replicas',
  ];
  return toCsv(
    header,
    rows.map((row) => [
      row.namespace,
      row.name,
      row.type,
      row.mechanism,
      row.hintsExpected ? 'on' : 'off',
      row.hintsObserved,
      row.attention?.reason ?? null,
      row.reason,
      row.readyEndpoints,
      ...zones.map((zone) => row.endpointsByZone[zone] ?? 0),
      round6(row.crossZoneFraction),
      round6(row.crossZoneFractionIfAuto),
      row.gbPerMonth,
      row.volumeSource,
      row.monthlyCost === null ? null : Math.round(row.monthlyCost * 100) / 100,
      row.measuredCrossZoneFraction,
      row.measuredMinusPredicted,
      row.hpaScaleDown.state,
      row.hpaScaleDown.minReplicas,
      row.hpaScaleDown.maxReplicas,
      row.hpaScaleDown.hintsOffAt.join(' '),
    ]),
  );
}
