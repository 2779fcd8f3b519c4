/** `GET /api/v1/cluster/history`: the range check and the methods, before any Prometheus query. */
import { describe, expect, it } from 'vitest';
import { DELETE, GET, OPTIONS, PATCH, POST, PUT } from './route';

describe('GET /api/v1/cluster/history', () => {
  it('answers 400 bad-request:api naming the ranges for another range', async () => {
    const response = await GET(new Request('http://localhost:3000/api/v1/cluster/history?range=30d'));
    expect(response.status).toBe(400);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({ error: { code: 'bad-request:api', message: 'range must be one of 1h, 6h, 24h, 7d (none: the range the data covers), not "30d".' } });
  });

  it('answers 405 with Allow: GET to other methods', () => {
    for (const handler of [POST, PUT, PATCH, DELETE, OPTIONS]) {
      const response = handler();
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET');
    }
  });
});
