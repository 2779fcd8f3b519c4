import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Env } from '../config/config';
import { configFromEnv, parseConfig } from '../config/config';
import { readVolumesFile, volumeSettingsFromEnv } from '../server/volume-settings';

const dir = mkdtempSync(path.join(tmpdir(), 'zonescope-volumes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

/** Why the configuration stops the start, one message per problem (none: `[]`). */
function startErrors(env: Env): string[] {
  const result = parseConfig(env);
  return result.ok ? [] : result.errors.map((e) => e.message);
}

describe('volume settings from the environment', () => {
  it('defaults: $0.01/GB, 50 GB per ready endpoint, no flat volume, nothing set', () => {
    const { settings, error } = volumeSettingsFromEnv(configFromEnv({}));
    expect(error).toBeNull();
    expect(settings).toEqual({ priceSetting: null, gbPerEndpoint: 50, gbPerService: null, setByService: new Map() });
  });

  it('reads price, assumptions and the per-Service volumes file', () => {
    const volumes = file('ok.json', JSON.stringify({ 'shop/web': 1200, 'payments/ledger': 0 }));
    const { settings, error } = volumeSettingsFromEnv(configFromEnv({ ZONESCOPE_PRICE_PER_GB: '0.02', ZONESCOPE_GB_PER_ENDPOINT: '10', ZONESCOPE_GB_PER_SERVICE: '500', ZONESCOPE_TRAFFIC_VOLUMES: volumes }));
    expect(error).toBeNull();
    expect(settings.priceSetting).toEqual({ kind: 'custom', pricePerUnit: 0.02, unit: 'GB', directions: 2 });
    expect(settings.gbPerEndpoint).toBe(10);
    expect(settings.gbPerService).toBe(500);
    expect([...settings.setByService]).toEqual([
      ['shop/web', 1200],
      ['payments/ledger', 0],
    ]);
  });

  it('ZONESCOPE_CROSS_ZONE_PRICE: a cloud or a price with its charged directions; a bad one stops the start, naming the variable and what it takes', () => {
    expect(volumeSettingsFromEnv(configFromEnv({ ZONESCOPE_CROSS_ZONE_PRICE: 'gcp' })).settings.priceSetting).toEqual({ kind: 'cloud', cloud: 'gcp' });
    expect(volumeSettingsFromEnv(configFromEnv({ ZONESCOPE_CROSS_ZONE_PRICE: '0.02/GB x1' })).settings.priceSetting).toEqual({ kind: 'custom', pricePerUnit: 0.02, unit: 'GB', directions: 1 });
    expect(startErrors({ ZONESCOPE_CROSS_ZONE_PRICE: 'cheap' })).toEqual([expect.stringContaining('ZONESCOPE_CROSS_ZONE_PRICE must be aws, gcp, azure, or a price such as "0.01/GB x2"')]);
    // Both prices at once used to be reported and ZONESCOPE_CROSS_ZONE_PRICE used: now the start stops, saying which to keep.
    expect(startErrors({ ZONESCOPE_CROSS_ZONE_PRICE: 'azure', ZONESCOPE_PRICE_PER_GB: '0.01' })).toEqual([expect.stringContaining('are both set')]);
  });

  it('a value that is no number ≥ 0 stops the start, naming each variable (it used to keep its default and say why)', () => {
    expect(startErrors({ ZONESCOPE_PRICE_PER_GB: '-1', ZONESCOPE_GB_PER_ENDPOINT: 'lots', ZONESCOPE_GB_PER_SERVICE: '7' })).toEqual([
      'ZONESCOPE_PRICE_PER_GB must be a number of at least 0, not "-1".',
      'ZONESCOPE_GB_PER_ENDPOINT must be a number of at least 0, not "lots".',
    ]);
  });

  it.each([
    { name: 'missing file', text: null, message: (p: string) => `ZONESCOPE_TRAFFIC_VOLUMES (${p}) cannot be read; no per-Service volumes are set.` },
    { name: 'not JSON', text: '{oops', message: (p: string) => `ZONESCOPE_TRAFFIC_VOLUMES (${p}) is not JSON; expected {"namespace/name": GB per month, …}. No per-Service volumes are set.` },
    { name: 'a list', text: '[1,2]', message: (p: string) => `ZONESCOPE_TRAFFIC_VOLUMES (${p}) must hold a JSON object {"namespace/name": GB per month, …}. No per-Service volumes are set.` },
    { name: 'a key without namespace', text: '{"web": 5}', message: (p: string) => `ZONESCOPE_TRAFFIC_VOLUMES (${p}): "web" is not namespace/name. No per-Service volumes are set.` },
    { name: 'a negative volume', text: '{"shop/web": 5, "shop/api": -2}', message: (p: string) => `ZONESCOPE_TRAFFIC_VOLUMES (${p}): the volume of shop/api must be a number of GB ≥ 0. No per-Service volumes are set.` },
  ])('volumes file: $name → nothing of it is used, with a clear message', ({ name, text, message }) => {
    const p = text === null ? path.join(dir, 'does-not-exist.json') : file(`${name.replace(/\W+/g, '-')}.json`, text);
    expect(readVolumesFile(p)).toBe(message(p));
    const { settings, error } = volumeSettingsFromEnv(configFromEnv({ ZONESCOPE_TRAFFIC_VOLUMES: p }));
    expect(settings.setByService.size).toBe(0);
    expect(error).toBe(message(p));
  });
});
