import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { endpointShape, endpointShapeCode, FirstAddresses, firstAddressesDistinct, shapeCode } from './endpoint-shape';
import { toTrafficEndpoints } from './traffic';
import { groupTrafficEndpoints } from './traffic-figures-memo';
import type { Endpoint } from '../upstream/types';

const nodeZoneByName = new Map<string, string | null>([['node-a', 'a'], ['node-b', 'b'], ['node-empty', ''], ['node-none', null]]);

const endpointArb = fc.record({
  addresses: fc.constantFrom<string[]>([], ['10.0.0.1'], ['10.0.0.2']),
  zone: fc.constantFrom<string | null>(null, '', 'a', 'b'),
  nodeName: fc.constantFrom<string | null>(null, 'node-a', 'node-b', 'node-empty', 'node-none', 'node-gone'),
  ready: fc.constantFrom<boolean | null>(null, true, false),
  serving: fc.constantFrom<boolean | null | undefined>(undefined, null, true, false),
  terminating: fc.constantFrom<boolean | null | undefined>(undefined, null, true, false),
  hints: fc.constantFrom<Endpoint['hints']>(null, {}, { forZones: [] }, { forZones: [''] }, { forZones: ['a'] }, { forZones: ['a', 'b'] }),
});

describe('endpointShape', () => {
  it('the exact shape determines the traffic shape', () => {
    fc.assert(
      fc.property(endpointArb, endpointArb, (a, b) => {
        if (endpointShape(a, nodeZoneByName, true) === endpointShape(b, nodeZoneByName, true)) {
          expect(endpointShape(a, nodeZoneByName, false)).toBe(endpointShape(b, nodeZoneByName, false));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('the traffic shape reads the resolved zone, the exact shape the zone as written too', () => {
    const written: Endpoint = { addresses: ['10.0.0.1'], zone: 'a', nodeName: 'node-b', ready: true, hints: null };
    const resolved: Endpoint = { ...written, zone: null, nodeName: 'node-a' };
    expect(endpointShape(written, nodeZoneByName, false)).toBe(endpointShape(resolved, nodeZoneByName, false));
    expect(endpointShape(written, nodeZoneByName, true)).not.toBe(endpointShape(resolved, nodeZoneByName, true));
    expect(endpointShape({ ...written, ready: null }, nodeZoneByName, false)).toBe(endpointShape(written, nodeZoneByName, false));
    expect(endpointShape({ ...written, ready: null }, nodeZoneByName, true)).not.toBe(endpointShape(written, nodeZoneByName, true));
    expect(endpointShape({ ...written, hints: {} }, nodeZoneByName, false)).toBe(endpointShape(written, nodeZoneByName, false));
    expect(endpointShape({ ...written, hints: {} }, nodeZoneByName, true)).not.toBe(endpointShape(written, nodeZoneByName, true));
  });
});

describe('endpointShapeCode', () => {
  it('gives two endpoints the same one-character code exactly when their shapes are equal, in both kinds', () => {
    fc.assert(
      fc.property(endpointArb, endpointArb, fc.boolean(), (a, b, exact) => {
        const codeA = endpointShapeCode(a, nodeZoneByName, exact);
        const codeB = endpointShapeCode(b, nodeZoneByName, exact);
        expect(codeA === codeB).toBe(endpointShape(a, nodeZoneByName, exact) === endpointShape(b, nodeZoneByName, exact));
        expect(codeA).toBe(shapeCode(endpointShape(a, nodeZoneByName, exact)));
      }),
      { numRuns: 3000 },
    );
    const hinted: Endpoint = { addresses: ['10.0.0.1'], zone: 'a', nodeName: null, ready: true, hints: { forZones: ['b'] } };
    expect(endpointShapeCode(hinted, nodeZoneByName, false)).toHaveLength(1);
    // Hints with several zones are spelled out as text first, then coded alike.
    const twoZones: Endpoint = { ...hinted, hints: { forZones: ['a', 'b'] } };
    expect(endpointShapeCode(twoZones, nodeZoneByName, true)).toBe(endpointShapeCode({ ...twoZones, addresses: ['10.0.0.9'] }, nodeZoneByName, true));
    expect(endpointShapeCode(twoZones, nodeZoneByName, true)).not.toBe(endpointShapeCode(hinted, nodeZoneByName, true));
  });

  it('keeps zones apart beyond the numbered ones (hundreds of zones, then the text)', () => {
    const codes = new Set<string>();
    for (let i = 0; i < 600; i++) {
      const endpoint: Endpoint = { addresses: [], zone: 'a', nodeName: null, ready: true, hints: { forZones: [`zone-${i}`] } };
      const code = endpointShapeCode(endpoint, nodeZoneByName, false);
      expect(code).toBe(shapeCode(endpointShape(endpoint, nodeZoneByName, false)));
      codes.add(code);
    }
    expect(codes.size).toBe(600);
  });
});

describe('firstAddressesDistinct', () => {
  it('tells slices whose endpoints all have their own first address, and the shortcut it allows changes nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.array(endpointArb, { maxLength: 4 }), { maxLength: 3 }), (lists) => {
        const slices = lists.map((endpoints) => ({ endpoints }));
        const firsts = slices.flatMap((slice) => slice.endpoints.flatMap((e) => (e.addresses[0] === undefined ? [] : [e.addresses[0]])));
        const distinct = firstAddressesDistinct(slices);
        expect(distinct).toBe(new Set(firsts).size === firsts.length);
        if (distinct) {
          expect(toTrafficEndpoints(slices, nodeZoneByName, true)).toEqual(toTrafficEndpoints(slices, nodeZoneByName));
          expect(groupTrafficEndpoints(slices, nodeZoneByName, true)).toEqual(groupTrafficEndpoints(slices, nodeZoneByName));
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('FirstAddresses', () => {
  it('numbers distinct addresses in order, by scanning or with a map', () => {
    for (const count of [3, 40]) {
      const addresses = new FirstAddresses([{ endpoints: Array.from({ length: count }, () => ({ addresses: [], zone: null, nodeName: null, ready: null, hints: null })) }]);
      expect([addresses.repeatOf('x'), addresses.repeatOf('y'), addresses.repeatOf('x'), addresses.repeatOf('y'), addresses.repeatOf('z')]).toEqual([-1, -1, 0, 1, -1]);
    }
  });
});
