import { describe, expect, it } from 'vitest';

import type { ServiceTableData } from './table';
import { serviceTableBody, serviceTableJson } from './table';

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
  });

  it('is one body per table: the same bytes and version for every request, a new version for a new table', () => {
    const table: ServiceTableData = { zones: ['a'], reasons: [], namespaces: ['shop'], labels: ['ClusterIP'], rows: [[0, 'cart', 0, -1, 0, -1, -1, -1, [2], 2, 0.5, 0, 10, -1, 0.05, null, null, -1, null]], unknown: { hints: null, endpoints: null, crossZone: null, hpa: null }, pricing: null };
    const body = serviceTableBody(table);
    expect(serviceTableBody(table)).toBe(body);
    expect(Buffer.from(body.bytes).toString('latin1')).toBe(serviceTableJson(table));
    const next = serviceTableBody({ ...table, rows: [] });
    expect(next.version).not.toBe(body.version);
  });
});
