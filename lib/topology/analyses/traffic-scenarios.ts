/**
 * The traffic scenarios of a Service: the keys of its traffic matrices (`trafficMatrix.now`, …),
 * in display order. Pure: shared by the engine, the data layer, the API and the browser.
 */

/**
 * The four traffic scenarios, in display order:
 * - `now`: following the hints on the EndpointSlices now, as kube-proxy does;
 * - `expected`: with the hints the EndpointSlice controller is expected to write on its next sync;
 * - `ifAuto`: if topology mode were `Auto` (the controller's hints for Auto);
 * - `ifNone`: if no endpoint carried hints (every client spreads over all endpoints).
 */
export const TRAFFIC_SCENARIOS = ['now', 'expected', 'ifAuto', 'ifNone'] as const;

/** One traffic scenario (see {@link TRAFFIC_SCENARIOS}). */
export type TrafficScenario = (typeof TRAFFIC_SCENARIOS)[number];
