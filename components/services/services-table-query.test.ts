/**
 * What the Services table makes of a new address-bar query from the router: its own last write,
 * a late echo of an earlier write (which must not undo what the user did since), or a change
 * under the table (which it takes).
 */
import { describe, expect, it } from 'vitest';
import { urlChange } from './services-table-query';

describe('urlChange', () => {
  it('knows the echo of its last write', () => {
    expect(urlChange('q=checkout', 'q=checkout', ['q=checkout'])).toBe('own');
    expect(urlChange('', '', [''])).toBe('own');
  });

  it('does not take an earlier write of its own that the router commits after a later one', () => {
    // The user searched, paused (written), then cleared the filters (written): the router's update
    // for the search can commit after the clear was written. Taking it would bring the search back.
    expect(urlChange('q=no-such-service', '', ['q=insufficient', 'q=no-such-service', ''])).toBe('stale');
    expect(urlChange('q=insufficient', '', ['q=insufficient', 'q=no-such-service', ''])).toBe('stale');
  });

  it('takes a query it never wrote: Back, Forward, a link', () => {
    expect(urlChange('ns=payments', 'q=checkout', ['q=checkout'])).toBe('external');
    // The URL it was first shown with is not a write of its own: a link back to it is taken.
    expect(urlChange('', 'q=checkout', ['q=checkout'])).toBe('external');
    expect(urlChange('q=cart', null, [])).toBe('external');
  });
});
