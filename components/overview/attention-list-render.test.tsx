/**
 * What the Overview's "Services needing attention" panel shows of a large group: its count and
 * summary, its most costly members by name (at most GROUP_LISTED), how many more there are, and
 * the link to all of them in the Services table — never every member's row (at 10,000 Services one
 * group held thousands, and the page was megabytes of HTML).
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { htmlText } from '../test-support';
import { AttentionList, GROUP_LISTED } from './attention-list';

const fewer = (i: number) => ({
  namespace: 'shop',
  name: `svc-${String(i).padStart(3, '0')}`,
  reason: 'hints-off' as const,
  message: `Hints off: Insufficient number of endpoints (${1 + (i % 2)} endpoints, 3 zones), addressType: IPv4.`,
});

describe('the attention list of a large group', () => {
  const items = Array.from({ length: 300 }, (_, i) => fewer(i));
  // svc-299 is the most costly, then svc-298, …: the listed members are the top of that order.
  const money = new Map(items.map((item, i) => [`${item.namespace}/${item.name}`, { monthlyCost: i, saving: i / 2 }]));
  const html = renderToStaticMarkup(<AttentionList items={items} money={money} />);
  const text = htmlText(html);

  it('says how many Services it holds and what they share', () => {
    expect(text).toContain('300 Services: Hints off — fewer endpoints than zones');
    expect(text).toContain('up to $299.00/month cross-zone · saves $149.50');
  });

  it(`names its ${GROUP_LISTED} most costly members, not the others`, () => {
    const listed = [...html.matchAll(/href="\/services\/shop\/(svc-\d+)"/g)].map((m) => m[1]);
    expect(listed).toEqual(Array.from({ length: GROUP_LISTED }, (_, i) => `svc-${299 - i}`));
    expect(html).not.toContain('svc-000');
  });

  it('counts the rest and links to all of them in the Services table', () => {
    expect(text).toContain(`${300 - GROUP_LISTED} more not listed here.`);
    expect(html).toContain('href="/services?attention=1&amp;reason=hints-off&amp;sort=cost&amp;order=desc"');
    expect(text).toContain('Every Service needing attention for “Hints off” →');
  });

  it('lists a group that fits in full, with no "more" line', () => {
    const small = items.slice(0, GROUP_LISTED);
    const smallText = htmlText(renderToStaticMarkup(<AttentionList items={small} money={money} />));
    expect(smallText).toContain(`${GROUP_LISTED} Services: Hints off`);
    for (const item of small) expect(smallText).toContain(`shop/${item.name}`);
    expect(smallText).not.toContain('more not listed here');
  });

  it('is the same list when rendered again from the same analysis (memoised entries)', () => {
    expect(renderToStaticMarkup(<AttentionList items={items} money={money} />)).toBe(html);
  });
});
