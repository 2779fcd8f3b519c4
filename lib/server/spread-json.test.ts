/**
 * The Service API's body from a detail serialised once: the same text as `JSON.stringify` of the
 * spread, for a real analysis detail and for the edge cases of the spread (an override keeps its
 * key's place, added keys follow, `undefined` is left out).
 */
import { describe, expect, it } from 'vitest';

import { analyzeService } from '../topology/report/service-detail';
import { publicCases } from '../topology/report/test-public-cases';
import { jsonPieces, spreadJson } from './spread-json';

describe('spreadJson', () => {
  it('a Service detail with the API fields: byte for byte JSON.stringify({ ...detail, ...overrides })', () => {
    const index = publicCases();
    for (const name of ['api', 'web']) {
      const detail = analyzeService(index, 'default', name);
      if (!detail) throw new Error(`no Service ${name}`);
      const overrides = {
        traffic: { ...detail.traffic, crossZoneFraction: 0.125, monthlyCost: { now: 1 } },
        resourceVersion: '4711',
        release: '1.31',
        readOnly: false,
        measuredVsPredicted: null,
      };
      expect(spreadJson(jsonPieces(detail), overrides)).toBe(JSON.stringify({ ...detail, ...overrides }));
    }
  });

  it('keeps an overridden key in place, appends new keys, leaves out undefined like JSON.stringify', () => {
    const base = { a: 1, b: 'x', c: undefined, d: { e: [1, 'two', null] }, 'q"uote': true };
    const cases: Record<string, unknown>[] = [{}, { b: 2 }, { a: undefined }, { c: 3 }, { z: 1, a: [1] }, { 'q"uote': 'ü\n' }, { d: undefined, y: undefined }];
    for (const overrides of cases) expect(spreadJson(jsonPieces(base), overrides)).toBe(JSON.stringify({ ...base, ...overrides }));
  });

  it('fails loudly when the pieces are not the base: a changed value shows', () => {
    const pieces = jsonPieces({ a: 1, b: 2 });
    expect(spreadJson(pieces, { b: 3 })).toBe('{"a":1,"b":3}');
    expect(spreadJson(pieces, {})).not.toBe(JSON.stringify({ a: 1, b: 3 }));
  });
});
