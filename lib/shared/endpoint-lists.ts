/**
 * The per-endpoint lists of a Service, each served in full by
 * `GET /api/v1/services/{namespace}/{name}/endpoints` (lib/views/service/endpoint-lists.ts) for the
 * panels of the Service page that render only the first rows on the server: which lists there
 * are and what a request for one names. Types and constants, safe for client components.
 */
import type { TrafficScenario } from '../topology/analyses/traffic-scenarios';

/** The per-endpoint lists of the Service page, each served in full by `getServiceEndpointList` (lib/views/service/endpoint-lists.ts). */
export const ENDPOINT_LISTS = ['endpoints', 'diff', 'loads'] as const;
/** One per-endpoint list (see {@link ENDPOINT_LISTS}). */
export type EndpointListKind = (typeof ENDPOINT_LISTS)[number];

/** Which list `GET /api/v1/services/{namespace}/{name}/endpoints` returns. */
export interface EndpointListQuery {
  readonly list: EndpointListKind;
  /** The traffic scenario of `list=loads` (ignored otherwise). */
  readonly scenario: TrafficScenario;
}
