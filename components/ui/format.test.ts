import { describe, expect, it } from 'vitest';
import { shortZoneName } from './format';

const NONE = '(no zone)';

describe('shortZoneName', () => {
  it('drops the region every zone shares, keeps names whole otherwise', () => {
    const zones = ['ap-northeast-2a', 'ap-northeast-2b', 'ap-northeast-2c', NONE];
    expect(zones.map((z) => shortZoneName(zones, z, NONE))).toEqual(['2a', '2b', '2c', '∅']);
    // Zones of two regions share only "us-": the part after the last shared dash stays.
    expect(shortZoneName(['us-east-1a', 'us-west-2b'], 'us-west-2b', NONE)).toBe('west-2b');
    expect(shortZoneName(['eu-west-1a'], 'eu-west-1a', NONE)).toBe('eu-west-1a');
    expect(shortZoneName(['zone-a', 'zone-a-local'], 'zone-a', NONE)).toBe('a');
  });
});
