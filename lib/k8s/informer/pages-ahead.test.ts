/** The continue token read from the head of a list page, before it is parsed (lib/k8s/informer/pages-ahead.ts). */
import { describe, expect, it } from 'vitest';
import { leadingContinueToken } from './pages-ahead';

describe('leadingContinueToken', () => {
  it('reads the continue token from the head of a list page as API servers write it', () => {
    const token = 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjA3NTg2fQ';
    expect(leadingContinueToken(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"207586","continue":"${token}","remainingItemCount":149967},"items":[{"metadata":{"name":"a"}}]}`)).toBe(token);
    expect(leadingContinueToken(`{ "kind": "PodList", "apiVersion": "v1", "metadata": { "continue": "${token}" }, "items": [] }`)).toBe(token);
  });

  it('is null for the last page, a page whose metadata does not lead, or a continue that is only text inside another field', () => {
    expect(leadingContinueToken('{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[]}')).toBeNull();
    expect(leadingContinueToken('{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":""},"items":[]}')).toBeNull();
    expect(leadingContinueToken('{"items":[],"metadata":{"continue":"abc"}}')).toBeNull();
    expect(leadingContinueToken('{"kind":"PodList","metadata":{"selfLink":"x,\\"continue\\":\\"abc\\","resourceVersion":"7"},"items":[]}')).toBeNull();
  });
});
