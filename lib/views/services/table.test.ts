import { describe, expect, it } from 'vitest';

import type { ServiceTableData } from './table';
import { serviceTableJson } from './table';

describe("the Services page's table JSON", () => {
  it('is ASCII, with every character beyond it escaped, and parses back to the same table', () => {
    const table: ServiceTableData = {
      zones: ['eu-west-1a', 'eu-west-1b', '(no zone)'],
      reasons: ['Insufficient endpoints — 2 of 3 zones below their minimum', '4 × $0.01/GB, Σ ≥ 1 GB', 'emoji 🚀 kept'],
      namespaces: ['shop'],
      labels: ['ClusterIP', 'none'],
      rows: [],
      unknown: { hints: null, endpoints: null, crossZone: 'Nodes unreadable – no zones', hpa: null },
      pricing: null,
    };
    const json = serviceTableJson(table);
    expect(json).toMatch(/^[\x20-\x7e]*$/);
    expect(json).toContain('\\u2014');
    expect(json).toContain('\\ud83d\\ude80');
    expect(JSON.parse(json)).toEqual(table);
    // Memoised per table: the page hands the same string to every request.
    expect(serviceTableJson(table)).toBe(json);
  });
});
