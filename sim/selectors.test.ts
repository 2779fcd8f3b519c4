import { describe, expect, it } from 'vitest';
import { STORAGE } from './resources';
import {
  compileFieldSelector,
  formatLabelSelector,
  labelSelectorFromObject,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  SelectorError,
} from './selectors';
import { event, pod } from './test-support';

describe('label selectors', () => {
  const labels = { app: 'web', tier: 'front', version: '3' };
  const cases: [string, boolean][] = [
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=api', false],
    ['app!=api', true],
    ['missing!=x', true],
    ['app!=web', false],
    ['tier in (front,back)', true],
    ['tier in (back)', false],
    ['tier notin (back)', true],
    ['missing notin (a)', true],
    ['tier notin (front)', false],
    ['app', true],
    ['missing', false],
    ['!missing', true],
    ['!app', false],
    ['version>2', true],
    ['version<2', false],
    ['app=web, tier in (front), !legacy', true],
    ['app=web,tier=back', false],
    ['example.com/team', false],
  ];
  for (const [selector, expected] of cases) {
    it(`"${selector}" ${expected ? 'matches' : 'does not match'} app=web,tier=front,version=3`, () => {
      expect(matchesLabels(parseLabelSelector(selector), labels)).toBe(expected);
    });
  }

  it('treats an absent label map as empty', () => {
    expect(matchesLabels(parseLabelSelector('!a'), undefined)).toBe(true);
    expect(matchesLabels(parseLabelSelector('a'), undefined)).toBe(false);
  });

  it('accepts empty values where upstream does', () => {
    expect(matchesLabels(parseLabelSelector('a='), { a: '' })).toBe(true);
    expect(parseLabelSelector('a in (x,)')[0]?.values).toEqual(['x', '']);
  });

  for (const bad of ['app in ()', 'app in (a', '=x', 'app=web,', 'app in a', 'a b', 'app=we b', 'a!b', 'x>y', 'Bad Key=1', 'a=@']) {
    it(`rejects "${bad}"`, () => {
      expect(() => parseLabelSelector(bad)).toThrowError(SelectorError);
    });
  }

  it('converts metav1.LabelSelector objects and formats them canonically', () => {
    const selector = labelSelectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['b', 'a'] },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    expect(formatLabelSelector(selector)).toBe('app=web,!legacy,tier in (a,b)');
    expect(matchesLabels(selector, { app: 'web', tier: 'a' })).toBe(true);
    expect(matchesLabels(selector, { app: 'web', tier: 'a', legacy: 'x' })).toBe(false);
    expect(labelSelectorFromObject(undefined)).toEqual([]);
    expect(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Near' }] })).toThrowError(SelectorError);
  });
});

describe('field selectors', () => {
  it('parses =, == and != terms with escapes', () => {
    expect(parseFieldSelector('metadata.name=a\\,b,spec.nodeName!=,status.phase==Running')).toEqual([
      { field: 'metadata.name', operator: '=', value: 'a,b' },
      { field: 'spec.nodeName', operator: '!=', value: '' },
      { field: 'status.phase', operator: '=', value: 'Running' },
    ]);
    expect(parseFieldSelector('')).toEqual([]);
    expect(() => parseFieldSelector('metadata.name')).toThrowError(SelectorError);
  });

  it('matches pods by node and phase, as kubectl describe node asks', () => {
    const match = compileFieldSelector(parseFieldSelector('spec.nodeName=n1,status.phase!=Succeeded,status.phase!=Failed'), STORAGE.pods.fields);
    expect(match(pod('p', 'default', {}, 'n1'))).toBe(true);
    expect(match(pod('p', 'default', {}, 'n2'))).toBe(false);
  });

  it('matches events by involvedObject fields and rejects unsupported labels', () => {
    const e = event('e1', 'default', { kind: 'Service', name: 'web', uid: 'u1' }, 'TopologyAwareHintsEnabled');
    const match = compileFieldSelector(
      parseFieldSelector('involvedObject.kind=Service,involvedObject.name=web,involvedObject.namespace=default,involvedObject.uid=u1'),
      STORAGE.events.fields,
    );
    expect(match(e)).toBe(true);
    expect(compileFieldSelector(parseFieldSelector('reason=Other'), STORAGE.events.fields)(e)).toBe(false);
    expect(() => compileFieldSelector(parseFieldSelector('spec.nodeName=x'), STORAGE.services.fields)).toThrowError('field label not supported: spec.nodeName');
  });

  it('renames aliased labels (events.k8s.io regarding.* → involvedObject.*)', () => {
    const e = event('e1', 'default', { kind: 'Service', name: 'web' }, 'R');
    const match = compileFieldSelector(parseFieldSelector('regarding.name=web'), STORAGE.events.fields, { 'regarding.name': 'involvedObject.name' });
    expect(match(e)).toBe(true);
  });
});
