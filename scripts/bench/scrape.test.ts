/**
 * The bench's scrape on a kept connection the server closes: the metrics phase pauses between
 * scrapes, and a scrape sent as the dashboard closed the idle connection failed a whole run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DroppingServer } from './dropping-server';
import { startDroppingServer } from './dropping-server';
import { closeScrapeConnections, scrape } from './scrape';

describe('scrape on a kept connection the server closes', () => {
  let dropping: DroppingServer;

  beforeAll(async () => {
    dropping = await startDroppingServer((_request, response) => {
      response.setHeader('content-type', 'text/plain; version=0.0.4');
      response.end('up 1\n');
    });
  });

  afterAll(async () => {
    closeScrapeConnections();
    await dropping.close();
  });

  it('is sent once more on a new connection and answered', async () => {
    const url = `${dropping.base}/metrics`;
    expect((await scrape(url, { gzip: false })).text).toBe('up 1\n');
    const again = await scrape(url, { gzip: false });
    expect(again.status).toBe(200);
    expect(again.text).toBe('up 1\n');
    expect(dropping.connections).toEqual(['serve', 'drop', 'serve']);
  });
});
