/**
 * A Service's endpoints on the zone map: one column per zone, one tile per endpoint, coloured and
 * marked by its zone hint (own zone, donated to another zone, no hint, not ready), with an arrow
 * from every donated endpoint to the zone whose traffic it takes. Switchable between the hints on
 * the slices now and the hints the controller is expected to write (`?map=expected`).
 *
 * Above {@link MAX_TILE_ENDPOINTS} endpoints the columns show one bar per kind of endpoint with
 * its count instead of one tile each, and arrows join zone pairs: hundreds of tiles are neither
 * readable nor cheap to send. The endpoint table under the map lists every endpoint.
 *
 * The layout is computed here, on the server; `ZoneMapFigure` draws it. The figure is a
 * client component so that the page's RSC payload carries the laid-out numbers and texts (a few
 * hundred bytes per zone) instead of the SVG element tree a second time next to the HTML.
 */
import type { EndpointView } from '@/lib/topology/analyses/analyze-service';
import { ZoneMapFigure } from './zone-map-figure';
import { cachedZoneMapModel } from './zone-map-model';


export function ServiceZoneMap({ endpoints, zones, mode }: { readonly endpoints: readonly EndpointView[]; readonly zones: readonly string[]; readonly mode: 'observed' | 'expected' }) {
  return <ZoneMapFigure model={cachedZoneMapModel(endpoints, zones, mode)} />;
}
