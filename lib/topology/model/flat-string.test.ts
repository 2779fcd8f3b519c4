import { describe, expect, it } from 'vitest';

import { flatString, SHARED_TEXT_LIMIT, sharedText } from './flat-string';

/** A text built piece by piece, as the analyses build messages and keys (a rope in V8). */
function built(parts: readonly string[]): string {
  let text = '';
  for (const part of parts) text += part;
  return text;
}

describe('built strings kept by the analyses', () => {
  it('keep their text when laid out in one piece', () => {
    const parts = ['us-east-1a', '\u0002', 'm', '\u0004', 'x'.repeat(40)];
    expect(flatString(built(parts))).toBe(parts.join(''));
    expect(flatString('')).toBe('');
  });

  it('keep their text when shared, also once the bound is passed and the copies start over', () => {
    const parts = ['No topology: every ready endpoint is used because ', 'no hints apply'];
    // (Which copy comes back cannot be observed from JavaScript; the heap snapshots in BENCHMARKS.md show it.)
    expect(sharedText(built(parts))).toBe(parts.join(''));
    expect(sharedText(built(parts))).toBe(parts.join(''));
    for (let i = 0; i <= SHARED_TEXT_LIMIT; i++) expect(sharedText(built(['zone ', String(i)]))).toBe(`zone ${i}`);
    expect(sharedText(built(parts))).toBe(parts.join(''));
  });
});
