/**
 * The Services table's rows, decoded from the compact tuples the server sends (`serviceTableJson`:
 * every repeated string an index into one of the table's lists), with the search text and natural
 * key of each precomputed once, and the table's filtered and sorted views (./table-view.ts).
 */
import type { HpaScaleDownState, QueryableService } from '@/lib/shared/service-query';
import { serviceNaturalKey, serviceSearchText } from '@/lib/shared/service-query';
import { flatString } from '@/lib/topology/model/flat-string';
import type { ServiceRow } from '@/lib/views/services/rows';
import type { ServiceTableData } from '@/lib/views/services/table';
import { serviceHref } from '../ui/format';
import { TableViews } from './table-view';

/** A decoded row (search text and natural key precomputed once, for filtering and sorting). */
export interface Row extends QueryableService {
  /** `namespace/name`. */
  readonly key: string;
  readonly type: ServiceRow['type'];
  readonly href: string;
  readonly mechanism: ServiceRow['mechanism'];
  readonly endpointsByZone: readonly number[];
  readonly crossZoneIfAuto: number;
  readonly volumeSource: ServiceRow['volumeSource'];
  readonly measuredCrossZone: number | null;
  /** The HPA's range and the counts of it where hints are off; `null` without an HPA. */
  readonly hpaRange: { readonly minReplicas: number; readonly maxReplicas: number; readonly hintsOffAt: readonly number[] } | null;
}

function decode(data: ServiceTableData): Row[] {
  // Every repeated string of a row is an index into one of the table's lists (-1: none).
  const label = <T extends string>(index: number): T | null => (index >= 0 ? ((data.labels[index] ?? null) as T | null) : null);
  return data.rows.map((r) => {
    const namespace = data.namespaces[r[0]] ?? '';
    return {
      namespace,
      name: r[1],
      // Kept for as long as the table (the server keeps its last one): built links laid out in one piece.
      key: flatString(`${namespace}/${r[1]}`),
      href: flatString(serviceHref(namespace, r[1])),
      naturalKey: serviceNaturalKey(namespace, r[1]),
      search: serviceSearchText(namespace, r[1]),
      type: label<ServiceRow['type']>(r[2]) ?? 'ClusterIP',
      mechanism: label<ServiceRow['mechanism']>(r[3]) ?? 'none',
      hintsExpected: r[4] === 1,
      hintsObserved: label<ServiceRow['hintsObserved']>(r[5]) ?? 'none',
      reason: r[6] >= 0 ? (data.reasons[r[6]] ?? null) : null,
      attention: label<NonNullable<ServiceRow['attention']>['reason']>(r[7]),
      endpointsByZone: r[8],
      readyEndpoints: r[9],
      crossZoneFraction: r[10],
      crossZoneIfAuto: r[11],
      gbPerMonth: r[12],
      volumeSource: label<NonNullable<ServiceRow['volumeSource']>>(r[13]),
      monthlyCost: r[14],
      measuredCrossZone: r[15],
      measuredMinusPredicted: r[16],
      hpaScaleDown: label<HpaScaleDownState>(r[17]) ?? 'unknown',
      hpaRange: r[18] === null ? null : { minReplicas: r[18][0] ?? 0, maxReplicas: r[18][1] ?? 0, hintsOffAt: r[18].slice(2) },
    };
  });
}

/** A table decoded from its JSON, with its filtered and sorted views by query. */
export interface DecodedTable {
  readonly json: string;
  readonly data: ServiceTableData;
  readonly rows: readonly Row[];
  readonly views: TableViews<Row>;
}

let lastTable: DecodedTable | null = null;

/**
 * The table of `json` (what `serviceTableJson` serialised), decoded once: the loader hands the same
 * JSON until the cluster changes (Back to the page included), so the last decoding (and its
 * sorted views) is reused instead of building 10,000 rows again.
 */
export function decodedTable(json: string): DecodedTable {
  if (lastTable?.json !== json) {
    const data = JSON.parse(json) as ServiceTableData;
    const rows = decode(data);
    lastTable = { json, data, rows, views: new TableViews(rows) };
  }
  return lastTable;
}
