/** The fleet's common reason for attention, in words that hold for every Service it counts. */
import { describe, expect, it } from 'vitest';

import { HINTS_REASON_CODES } from '../../topology/report/hints-reason';
import { ATTENTION_REASONS } from '../../shared/service-query';
import { ATTENTION_REASON_SENTENCE, commonAttentionSentence, HINTS_OFF_CAUSE } from './attention-words';

describe('commonAttentionSentence', () => {
  it('names the one controller reason all hints-off Services share, without any one Service\'s numbers', () => {
    expect(commonAttentionSentence('hints-off', [{ code: 'insufficient-number-of-endpoints', services: 12 }])).toBe('Hints off: fewer ready endpoints than zones.');
  });

  it('counts each controller reason when the hints-off Services have several, most first as given', () => {
    expect(
      commonAttentionSentence('hints-off', [
        { code: 'insufficient-number-of-endpoints', services: 9 },
        { code: 'no-zone-specified', services: 3 },
      ]),
    ).toBe('Hints off: fewer ready endpoints than zones (9), some endpoints have no zone (3).');
  });

  it('says the reason itself for every other reason (and for hints-off without counted causes)', () => {
    expect(commonAttentionSentence('out-of-sync', [])).toBe('The slices differ from what the controller would write.');
    expect(commonAttentionSentence('hints-off', [])).toBe(ATTENTION_REASON_SENTENCE['hints-off']);
  });

  it('has words for every reason and every bounded code, none with a number in it', () => {
    for (const reason of ATTENTION_REASONS) expect(ATTENTION_REASON_SENTENCE[reason]).toMatch(/^[A-Z][^0-9]+\.$/);
    for (const code of HINTS_REASON_CODES) expect(HINTS_OFF_CAUSE[code]).toMatch(/^[a-zA-Z][^0-9]+[a-zA-Z]$/);
  });
});
