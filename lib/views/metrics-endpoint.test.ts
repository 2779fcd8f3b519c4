import { describe, expect, it, vi } from 'vitest';

import { metricsSettingsFromEnv, trafficSourceUp } from './metrics-endpoint';

describe('metrics endpoint settings', () => {
  it('reads the cap and the budget, with the defaults when unset', () => {
    const warn = vi.fn();
    expect(metricsSettingsFromEnv({}, warn)).toEqual({ maxServices: 20_000, budgetDollarsPerMonth: null });
    expect(metricsSettingsFromEnv({ ZONESCOPE_METRICS_MAX_SERVICES: ' 5000 ', ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS: '1200.50' }, warn)).toEqual({ maxServices: 5000, budgetDollarsPerMonth: 1200.5 });
    expect(warn).not.toHaveBeenCalled();
  });

  it('a bad value: the default (cap) or no budget, and one warning naming each variable', () => {
    const warn = vi.fn();
    expect(metricsSettingsFromEnv({ ZONESCOPE_METRICS_MAX_SERVICES: 'all', ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS: 'cheap' }, warn)).toEqual({ maxServices: 20_000, budgetDollarsPerMonth: null });
    expect(warn.mock.calls.map((call) => String(call[0]).split('=')[0])).toEqual(['ZONESCOPE_METRICS_MAX_SERVICES', 'ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS']);
  });
});

describe('zonescope_traffic_source_up', () => {
  it('1 after a good refresh (even with no series), 0 after a failed one, absent when not configured or before the first', () => {
    expect(trafficSourceUp({ state: 'ok' })).toBe(true);
    expect(trafficSourceUp({ state: 'no-series' })).toBe(true);
    for (const state of ['stale', 'unreachable', 'error'] as const) expect(trafficSourceUp({ state })).toBe(false);
    expect(trafficSourceUp({ state: 'not-configured' })).toBeNull();
    expect(trafficSourceUp({ state: 'pending' })).toBeNull();
  });
});
