import { describe, expect, it } from 'vitest';
import { RssPhases } from './rss-phases';

describe('RssPhases', () => {
  it('keeps the highest sample per phase, in the order the phases began, and marks the highest', () => {
    const readings = [100, 300, 250, 700, 650, 0, 400];
    let at = 0;
    const phases = new RssPhases(1, 'cold sync', 60_000, () => readings[at++] ?? 0);
    phases.sample(); // 100
    phases.sample(); // 300
    phases.enter('warm: pages'); // 250 (cold sync), 700 (warm)
    phases.sample(); // 650
    phases.sample(); // 0: the process was gone, not counted
    phases.enter('idle'); // 400 (warm), then nothing left (0)
    phases.stop();
    expect(phases.summary()).toEqual([
      { phase: 'cold sync', maxMiB: 300, samples: 3 },
      { phase: 'warm: pages', maxMiB: 700, samples: 3 },
    ]);
    expect(phases.line()).toBe('cold sync 300, warm: pages 700 (highest)');
  });
});
