import { describe, expect, it } from 'vitest';

import { configFromEnv, parseConfig } from '../config/config';
import { DEFAULT_MAX_SERVICES } from '../prometheus/exporter/input';
import { metricsSettingsFromEnv, trafficSourceUp } from './metrics-endpoint';

describe('metrics endpoint settings', () => {
  it('reads the cap and the budget, with the defaults when unset', () => {
    expect(metricsSettingsFromEnv(configFromEnv({}))).toEqual({ maxServices: DEFAULT_MAX_SERVICES, budgetDollarsPerMonth: null });
    expect(metricsSettingsFromEnv(configFromEnv({ ZONESCOPE_METRICS_MAX_SERVICES: ' 5000 ', ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS: '1200.50' }))).toEqual({ maxServices: 5000, budgetDollarsPerMonth: 1200.5 });
    expect(metricsSettingsFromEnv(configFromEnv({ ZONESCOPE_METRICS_MAX_SERVICES: '0', ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS: '0' }))).toEqual({ maxServices: 0, budgetDollarsPerMonth: 0 });
  });

  it('a bad value stops the start, naming each variable (it used to be warned about and ignored)', () => {
    const result = parseConfig({ ZONESCOPE_METRICS_MAX_SERVICES: 'all', ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS: 'cheap' });
    expect(result.ok ? [] : result.errors.map((e) => e.message)).toEqual([
      'ZONESCOPE_METRICS_MAX_SERVICES must be a whole number of at least 0, not "all".',
      'ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS must be a number of at least 0, not "cheap".',
    ]);
    for (const bad of ['-1', '12.5']) expect(parseConfig({ ZONESCOPE_METRICS_MAX_SERVICES: bad }).ok, bad).toBe(false);
    for (const bad of ['-3', '$100']) expect(parseConfig({ ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS: bad }).ok, bad).toBe(false);
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
