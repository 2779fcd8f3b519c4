/**
 * The Overview's two cluster-level lines: each says one thing — how many Services' HPAs turn hints
 * off (and where in their range), how many measured Services disagree with the prediction — and
 * links to the Services table filtered to exactly those Services; with nothing to report, it says
 * so without a link.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import type { ClusterAnswers as Answers } from '@/lib/views/services/attention';
import { htmlText } from '../test-support';
import { ClusterAnswers, HPA_OFF_AT_MIN_HREF, HPA_OFF_HREF, measuredDiffHref } from './cluster-answers';

const NONE: Answers = { withHpa: 0, hpaOffAtMin: 0, hpaOffInRange: 0, hpaUnknown: 0, measured: 0, measuredDiffers: 0, threshold: 10 };
const render = (answers: Partial<Answers>) => renderToStaticMarkup(<ClusterAnswers answers={{ ...NONE, ...answers }} />);
const links = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => (m[1] ?? '').replace(/&amp;/g, '&'));

describe('the Overview’s cluster-level lines', () => {
  it('count the HPAs that turn hints off at minReplicas and elsewhere in their range, each linked to its filter', () => {
    const html = render({ withHpa: 5, hpaOffAtMin: 3, hpaOffInRange: 1 });
    // (htmlText puts a space where a link ends: the page reads "minReplicas; 1 more")
    expect(htmlText(html)).toContain('3 Services whose HPAs turn hints off at minReplicas ; 1 more whose HPA turns them off at another count of the range (Σ per-zone minimums exceed the replicas; of 5 Services scaled by an HPA).');
    expect(links(html)).toContain(HPA_OFF_AT_MIN_HREF);
    expect(links(html)).toContain(HPA_OFF_HREF);
    expect(HPA_OFF_AT_MIN_HREF).toBe('/services?hpa=off-at-min&sort=hpa');
    expect(htmlText(render({ withHpa: 1, hpaOffAtMin: 1 }))).toContain('1 Service whose HPA turns hints off at minReplicas (');
  });

  it('count the Services measured at least the threshold away from the prediction, linked to that filter sorted by the difference', () => {
    const html = render({ measured: 9, measuredDiffers: 2 });
    expect(htmlText(html)).toContain('2 Services where measured cross-zone differs from the prediction by ≥ 10 points (of 9 Services measured with zone-resolved flows');
    expect(links(html)).toEqual([measuredDiffHref(10)]);
    expect(measuredDiffHref(10)).toBe('/services?measuredDiff=10&sort=measuredDiff&order=desc');
  });

  it('say so, without a link, when there is nothing to report or nothing to compare', () => {
    const quiet = render({ withHpa: 4, measured: 9 });
    expect(htmlText(quiet)).toContain('No HPA turns hints off: at every replica count of their ranges the per-zone minimums fit (4 Services scaled by an HPA).');
    expect(htmlText(quiet)).toContain('Measured cross-zone traffic is within 10 points of the prediction for all 9 Services measured with zone-resolved flows.');
    expect(links(quiet)).toEqual([]);
    const empty = htmlText(render({}));
    expect(empty).toContain('No Service is scaled by an HPA');
    expect(empty).toContain('No Service is measured with zone-resolved flows');
    expect(htmlText(render({ hpaUnknown: 13 }))).toContain('HPA scale-down: unknown for 13 Services');
  });
});
