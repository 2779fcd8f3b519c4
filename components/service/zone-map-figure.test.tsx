/**
 * The zone map as the server renders it: every tile keeps its tooltip, mark and label, draws the
 * shape of its kind by reference to one shape per kind in the figure's `<defs>`, and writes no
 * empty mark; the aggregated map draws no tiles and defines no tile shapes.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { EndpointView } from '@/lib/topology/analyses/analyze-service';
import { htmlText } from '../test-support';
import { ZoneMapFigure } from './zone-map-figure';
import { zoneCountsText } from './zone-map-list';
import { MAX_TILE_ENDPOINTS, zoneMapModel } from './zone-map-model';

function endpoint(address: string, zone: string, hints: readonly string[] | null, ready = true): EndpointView {
  return { address, podName: `pod-${address}`, nodeName: `node-${zone}`, zone, ready, serving: ready, terminating: false, observedHints: hints, expectedHints: hints, donatedTo: null };
}

/** Zone a: one donated to c, one without hint, one not ready; zone b: two hinted for b; zone c: one hinted for c. */
const endpoints: EndpointView[] = [
  endpoint('10.0.0.1', 'a', ['c']),
  endpoint('10.0.0.2', 'a', null),
  endpoint('10.0.0.3', 'a', ['a'], false),
  endpoint('10.0.1.1', 'b', ['b']),
  endpoint('10.0.1.2', 'b', ['b']),
  endpoint('10.0.2.1', 'c', ['c']),
];

function tilesOf(html: string): string[] {
  return [...html.matchAll(/<g transform="translate\([^)]*\)"><title>.*?<\/g>/g)].map((m) => m[0]);
}

describe('ZoneMapFigure', () => {
  const model = zoneMapModel(endpoints, ['a', 'b', 'c'], 'observed');
  const html = renderToStaticMarkup(<ZoneMapFigure model={model} />);

  it('draws each tile by reference to its kind, with its tooltip, mark and label', () => {
    const tiles = tilesOf(html);
    expect(tiles).toHaveLength(endpoints.length);
    for (const [, , , kind, label, title] of model.tiles) {
      const tile = tiles.find((t) => t.includes(`<title>${title.replace(/&/g, '&amp;')}</title>`));
      expect(tile, title).toBeDefined();
      expect(tile).toContain(`<use href="#zs-tile-${kind}"></use>`);
      expect(tile).toContain(`>${label}</text>`);
      expect(tile).not.toContain('<rect');
    }
    const donated = tiles.find((t) => t.includes('#zs-tile-donated'));
    expect(donated).toContain('font-weight="700">→</text>');
    // No hint: no mark, so no empty text element.
    const none = tiles.find((t) => t.includes('#zs-tile-none'));
    expect(none?.match(/<text/g)).toHaveLength(1);
  });

  it("defines one shape per kind drawn, styled as the legend's", () => {
    const defs = /<defs>(.*?)<\/defs>/.exec(html)?.[1] ?? '';
    const ids = [...defs.matchAll(/<rect id="zs-tile-([a-z-]+)"/g)].map((m) => m[1]);
    expect(ids.sort()).toEqual(['donated', 'none', 'not-ready', 'own']);
    expect(defs).toContain('<rect id="zs-tile-not-ready" width="34" height="34" rx="5" fill="none" stroke="var(--map-hint-none-stroke)" stroke-width="1.5" stroke-dasharray="3 3"></rect>');
    expect(defs).toContain('<rect id="zs-tile-own" width="34" height="34" rx="5" fill="var(--map-hint-own)" stroke="var(--map-hint-own-stroke)" stroke-width="1.5"></rect>');
    // The tiles' texts take anchor and colour from their group.
    expect(html).toContain('<g text-anchor="middle" fill="var(--map-text)"><g transform=');
  });

  it('the aggregated map (above the tile limit) has no tiles and no tile shapes', () => {
    const many: EndpointView[] = [];
    for (let i = 0; i <= MAX_TILE_ENDPOINTS; i++) many.push(endpoint(`10.1.0.${i}`, i % 2 === 0 ? 'a' : 'b', null));
    const big = renderToStaticMarkup(<ZoneMapFigure model={zoneMapModel(many, ['a', 'b'], 'observed')} />);
    expect(big).not.toContain('zs-tile-');
    expect(big).toContain('<marker id="zs-arrow"');
  });

  it('narrow screens get the zones stacked as cards in page text; the drawing and the wide table only from 1280 px', () => {
    const list = /<ul class="space-y-2 xl:hidden"[^>]*data-testid="zone-map-list">(.*?)<\/ul><div class="hidden overflow-x-auto xl:block"><svg/.exec(html)?.[1] ?? '';
    expect(list).not.toBe('');
    const cards = [...list.matchAll(/<li class="[^"]*" data-zone="([^"]+)">/g)].map((m) => m[1]);
    expect(cards).toEqual(['a', 'b', 'c']);
    const text = htmlText(list);
    expect(text).toContain('a 2 ready · 1 not ready · 0 hinted for own zone · donates 1 · 1 without hint Donated to other zones: 1 → c');
    expect(text).toContain('c 1 ready · 1 hinted for own zone · receives 1');
    // Each endpoint is a chip with its mark and label, and its full description for screen readers.
    expect(text).toContain('→ .1 10.0.0.1 (pod-10.0.0.1) on node-a — Donated: hinted for another zone; hints: c');
    // Page text, never below 12 px (text-xs), and no fixed minimum width that would push a zone off screen.
    expect(list).not.toMatch(/text-\[(\d|1[01])px\]|min-w-\[/);
    expect(html).toContain('<div class="hidden overflow-x-auto xl:block"><table');
  });

  it('the aggregated cards: one row per kind with its count', () => {
    const many: EndpointView[] = [];
    for (let i = 0; i <= MAX_TILE_ENDPOINTS; i++) many.push(endpoint(`10.1.0.${i}`, i % 2 === 0 ? 'a' : 'b', i < 5 ? ['b'] : null));
    const text = htmlText(renderToStaticMarkup(<ZoneMapFigure model={zoneMapModel(many, ['a', 'b'], 'observed')} />));
    expect(text).toContain('a 31 ready · 0 hinted for own zone · donates 3 · 28 without hint Donated to other zones: 3 → b');
    expect(text).toContain('3 donated');
    expect(text).toContain('28 ready, no zone hint');
  });

  it('counts a zone in words, leaving out what is zero', () => {
    expect(zoneCountsText({ ready: 4, notReady: 0, own: 4, donatedOut: 0, received: 0, noHint: 0 })).toBe('4 ready · 4 hinted for own zone');
    expect(zoneCountsText({ ready: 4, notReady: 2, own: 1, donatedOut: 3, received: 5, noHint: 0 })).toBe('4 ready · 2 not ready · 1 hinted for own zone · donates 3 · receives 5');
  });
});
