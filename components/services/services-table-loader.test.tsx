/**
 * The Services table's loader as the server renders it: the rows are not in the page (they load
 * from the table's own address), so the HTML is the table's outline with a status line that says
 * what is loading, and — for a browser without JavaScript — links to the exports of every Service.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { parseTableQuery } from '@/lib/shared/services-table-url';
import { htmlText } from '../test-support';
import { ServicesTableLoader } from './services-table-loader';

const render = (total: number) => renderToStaticMarkup(<ServicesTableLoader src="/api/v1/services/table?v=7" total={total} initial={parseTableQuery({}, [])} />);

describe('the Services table loader, server-rendered', () => {
  it('says how many Services are loading, in a status line, and holds no row', () => {
    const html = render(9913);
    expect(html).toMatch(/<p role="status"[^>]*>Loading the table of 9,913 Services…<\/p>/);
    expect(html).toContain('aria-busy="true"');
    expect(html).not.toContain('<table');
    expect(render(1)).toContain('Loading the table of 1 Service…');
  });

  it('links the CSV and JSON exports of every Service for a browser without JavaScript', () => {
    const html = render(13);
    const noscript = /<noscript>([\s\S]*)<\/noscript>/.exec(html)?.[1] ?? '';
    expect(htmlText(/<p[\s\S]*<\/p>/.exec(noscript)?.[0] ?? '')).toBe('The table sorts and filters in the browser, which needs JavaScript. Every Service is in the CSV and JSON exports.');
    // The loading line and the table's outline would wait forever without JavaScript: the note hides them.
    expect(noscript).toContain('<style>[data-needs-script]{display:none}</style>');
    expect(html).toMatch(/<p role="status" data-needs-script=""/);
    expect(html).toMatch(/<div data-needs-script=""><div class="space-y-2 rounded-lg/);
    expect(noscript).toContain('href="/api/v1/services?format=csv"');
    expect(noscript).toContain('href="/api/v1/services?format=json"');
  });
});
