/**
 * What the Service page sends the request-sample panel for its pickers: the client zones with
 * their representative node and node counts, but not the zones' node lists. Each sample the panel
 * shows (the page's first one and every `request-sample` answer) carries the node list of its own
 * zone (`RequestSampleView.zoneNodes`), so a node list travels only for a zone the user looks at:
 * on a 5,000-node cluster the page no longer carries a hundred long node names per zone.
 */
import type { RequestSampleOptions } from '@/lib/views/service/request-sample';

/** One client zone of the picker, without its node list. */
export interface RequestSamplePickerZone {
  readonly zone: string;
  /** The node used when only the zone is picked. */
  readonly representative: string;
  /** Nodes the node picker lists for the zone (at most the cap of `RequestSampleOptions`). */
  readonly listedNodes: number;
  /** Client nodes the zone has. */
  readonly totalNodes: number;
}

export interface RequestSamplePickerOptions {
  readonly zones: readonly RequestSamplePickerZone[];
  readonly nodeMatters: boolean;
}

/** The picker options without node lists (see the module comment). */
export function pickerOptions(options: RequestSampleOptions): RequestSamplePickerOptions {
  return {
    zones: options.zones.map((z) => ({ zone: z.zone, representative: z.representative, listedNodes: z.nodes.length, totalNodes: z.totalNodes })),
    nodeMatters: options.nodeMatters,
  };
}
