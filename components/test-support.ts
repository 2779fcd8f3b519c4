/**
 * Helpers for component tests (not a test file itself): what a reader sees of server-rendered
 * markup.
 */
import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';

/** The text of rendered HTML: tags dropped, entities decoded, whitespace collapsed. */
export function htmlText(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The text a reader sees of `element`, rendered on the server. */
export function textOf(element: ReactElement): string {
  return htmlText(renderToStaticMarkup(element));
}
