import { describe, expect, it } from 'vitest';

import { effectiveTopologyAnnotation, hintsEnabled } from './annotations';

const MODE = 'service.kubernetes.io/topology-mode';
const LEGACY = 'service.kubernetes.io/topology-aware-hints';

describe('hintsEnabled', () => {
  it.each([
    ['topology-mode Auto enables hints from 1.27', { [MODE]: 'Auto' }, 27, true],
    ['topology-mode is unknown before 1.27', { [MODE]: 'Auto' }, 26, false],
    ['the legacy key works on 1.24', { [LEGACY]: 'auto' }, 24, true],
    ['a present legacy key wins over topology-mode, even when empty', { [LEGACY]: '', [MODE]: 'Auto' }, 30, false],
    ['a legacy auto wins over topology-mode Disabled', { [LEGACY]: 'auto', [MODE]: 'Disabled' }, 30, true],
    ['only Auto and auto count, not AUTO', { [MODE]: 'AUTO' }, 30, false],
    ['1.21 accepted only the lowercase auto', { [LEGACY]: 'Auto' }, 21, false],
    ['1.22 accepts Auto', { [LEGACY]: 'Auto' }, 22, true],
  ])('%s', (_rule, annotations, minor, enabled) => {
    expect(hintsEnabled(annotations, minor)).toBe(enabled);
  });

  it('reports when the legacy key shadows topology-mode', () => {
    expect(effectiveTopologyAnnotation({ [LEGACY]: 'auto', [MODE]: 'Disabled' }, 30)).toEqual({ key: LEGACY, value: 'auto', shadowsTopologyMode: true });
    expect(effectiveTopologyAnnotation({}, 30)).toBeNull();
  });
});
