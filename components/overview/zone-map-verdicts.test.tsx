/**
 * The Overview's zone map and hints verdict as the server renders them from a real analysis
 * (eks-demo and missing-zone-label, from their fixtures): the sentences above the map, each zone's
 * head in the SVG and in its text alternative, and the hints verdict with its links.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeAll, describe, expect, it } from 'vitest';

import { analyseFixture } from '@/lib/views/fleet/fleet-test-support';
import type { ClusterAnalysis } from '@/lib/topology/report/analysis-schema';
import { htmlText } from '../test-support';
import { formatPercent } from '../ui/format';
import { ClusterZoneMap } from './cluster-zone-map';
import type { HintsSync } from './hints-sync';
import { hintsSync } from './hints-sync';
import { HintsSyncVerdict, OUT_OF_SYNC_PATH } from './hints-sync-verdict';
import { formatPoints, zoneGlance } from './zone-glance';

let demo: ClusterAnalysis;
let missing: ClusterAnalysis;

beforeAll(async () => {
  [demo, missing] = await Promise.all([analyseFixture('eks-demo'), analyseFixture('missing-zone-label')]);
});

const decode = (text: string) => text.replace(/&#x27;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&');
const ariaLabel = (html: string) => decode(/<svg[^>]*role="img"[^>]*aria-label="([^"]*)"/.exec(html)?.[1] ?? '');

describe('the zone map', () => {
  it('says what sets each zone apart above the map, in its heads and in its text alternative', () => {
    const glance = zoneGlance(demo.cluster, demo.services, demo.traffic);
    const html = renderToStaticMarkup(<ClusterZoneMap cluster={demo.cluster} glance={glance} />);
    const text = htmlText(html);
    expect(text).toContain(glance.sentences.join(' '));
    const label = ariaLabel(html);
    for (const zone of glance.zones) {
      const cpu = `${formatPercent(zone.cpuShare)} of CPU · ${formatPoints(zone.deviationPoints ?? 0)} vs even`;
      // In the head (the SVG text) and in the text alternative.
      expect(text).toContain(cpu);
      expect(label).toContain(`${zone.zone}: `);
      expect(label).toContain(cpu);
      expect(label).toContain(`${zone.readyEndpoints} ready endpoints`);
      expect(label).toMatch(/Auto: (\d+ endpoints? donated (in|out)|none donated in or out|no Service has its hints on)/);
    }
    // Each CPU bar marks the even share.
    expect([...html.matchAll(/<line x1="[\d.]+" x2="[\d.]+" y1="27"/g)]).toHaveLength(glance.zones.length);
  });

  it('keeps the column of nodes without a zone label apart, saying they are not counted', () => {
    const glance = zoneGlance(missing.cluster, missing.services, missing.traffic);
    const html = renderToStaticMarkup(<ClusterZoneMap cluster={missing.cluster} glance={glance} />);
    expect(htmlText(html)).toContain('not counted: hints off cluster-wide');
    expect(ariaLabel(html)).toMatch(/\(no zone label\): \d+ nodes, not counted/);
    expect(ariaLabel(html)).toMatch(/disables hints cluster-wide\.$/);
  });
});

describe('the hints verdict', () => {
  const href = (path: string) => `/c/prod${path}`;

  it('says in sync for a cluster whose slices carry the expected hints', () => {
    const sync = hintsSync(demo.services);
    const text = htmlText(renderToStaticMarkup(<HintsSyncVerdict sync={sync} href={href} />));
    if (sync.waiting.length + sync.removing.length + sync.rewriting.length === 0) expect(text).toBe('In sync: the slices carry the hints the controller would write.');
    else expect(text).not.toContain('In sync');
  });

  it('names the first Services of each group with links into the cluster, counts the rest, and links the filtered table when it lists exactly them', () => {
    const sync: HintsSync = { waiting: ['shop/a', 'shop/b', 'shop/c', 'shop/d'], removing: ['pay/x'], rewriting: [], unknown: 0, tableFilterMatches: true };
    const html = renderToStaticMarkup(<HintsSyncVerdict sync={sync} href={href} />);
    expect(htmlText(html)).toBe(
      '4 Services wait for the controller to write hints; 1 Service has hints the controller would remove. Waiting: shop/a , shop/b , shop/c and 1 more To be removed: pay/x All of them in the Services table',
    );
    expect(html).toContain('href="/c/prod/services/shop/a"');
    expect(html).toContain('href="/c/prod/services/pay/x"');
    expect(html).toContain(`href="${href(OUT_OF_SYNC_PATH).replace(/&/g, '&amp;')}"`);
    expect(renderToStaticMarkup(<HintsSyncVerdict sync={{ ...sync, tableFilterMatches: false }} href={href} />)).not.toContain('reason=out-of-sync');
  });
});
