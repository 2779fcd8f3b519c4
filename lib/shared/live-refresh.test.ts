import { describe, expect, it } from 'vitest';
import {
  connectionLost,
  decideRefresh,
  formatAge,
  formatRenderedAt,
  healthKey,
  HOLD_SELECTOR,
  isBehind,
  isTextEntry,
  liveNote,
  MIN_REFRESH_INTERVAL_MS,
} from './live-refresh';
import type { LiveMark, RefreshInput } from './live-refresh';

const SYNCED = [
  { resource: 'nodes', health: 'synced' },
  { resource: 'services', health: 'synced' },
];

function mark(generation: number, synced = true, resources = SYNCED): LiveMark {
  return { generation, synced, health: healthKey(synced, resources) };
}

describe('healthKey', () => {
  it('lists every type in order with its health, and whether the first sync is done', () => {
    expect(healthKey(true, SYNCED)).toBe('synced|nodes:synced,services:synced');
    expect(healthKey(false, [{ resource: 'nodes', health: 'syncing' }])).toBe('syncing|nodes:syncing');
    expect(healthKey(true, [])).toBe('synced|');
  });
});

describe('isBehind', () => {
  it('is behind when the generation moved once synced', () => {
    expect(isBehind(mark(4), mark(4))).toBe(false);
    expect(isBehind(mark(4), mark(5))).toBe(true);
    // A restarted server starts counting again: different is behind, not only larger.
    expect(isBehind(mark(40), mark(3))).toBe(true);
  });

  it('is behind when a type changed health (a watch went stale or recovered), whatever the generation', () => {
    const stale = mark(4, true, [{ resource: 'nodes', health: 'stale' }, { resource: 'services', health: 'synced' }]);
    expect(isBehind(mark(4), stale)).toBe(true);
    expect(isBehind(stale, mark(4))).toBe(true);
  });

  it('ignores generation moves before the first sync (the header re-renders the page then anyway)', () => {
    const syncing = [{ resource: 'nodes', health: 'syncing' }];
    expect(isBehind(mark(1, false, syncing), mark(9, false, syncing))).toBe(false);
    expect(isBehind(mark(1, false, syncing), mark(9, true, SYNCED))).toBe(true);
  });
});

describe('decideRefresh', () => {
  const base: RefreshInput = { behind: true, hold: null, hidden: false, refreshing: false, now: 100_000, lastRefreshAt: null };

  it('refreshes a page that is behind, and does nothing for a current page', () => {
    expect(decideRefresh(base)).toEqual({ kind: 'refresh' });
    expect(decideRefresh({ ...base, behind: false })).toEqual({ kind: 'idle' });
    expect(decideRefresh({ ...base, behind: false, hold: 'dialog', hidden: true })).toEqual({ kind: 'idle' });
  });

  it('never refreshes under an open confirmation or while a field is edited', () => {
    expect(decideRefresh({ ...base, hold: 'dialog' })).toEqual({ kind: 'wait', reason: 'dialog', retryInMs: null });
    expect(decideRefresh({ ...base, hold: 'editing' })).toEqual({ kind: 'wait', reason: 'editing', retryInMs: null });
  });

  it('waits for the refresh in flight and for a hidden tab', () => {
    expect(decideRefresh({ ...base, refreshing: true })).toMatchObject({ kind: 'wait', reason: 'refreshing' });
    expect(decideRefresh({ ...base, hidden: true })).toMatchObject({ kind: 'wait', reason: 'hidden' });
  });

  it('coalesces bursts: at most one refresh per interval, saying when to look again', () => {
    expect(decideRefresh({ ...base, lastRefreshAt: base.now - 500 })).toEqual({ kind: 'wait', reason: 'cooldown', retryInMs: MIN_REFRESH_INTERVAL_MS - 500 });
    expect(decideRefresh({ ...base, lastRefreshAt: base.now - MIN_REFRESH_INTERVAL_MS })).toEqual({ kind: 'refresh' });
    expect(decideRefresh({ ...base, lastRefreshAt: base.now - 100, minIntervalMs: 50 })).toEqual({ kind: 'refresh' });
    // A clock that went backwards does not block refreshes forever.
    expect(decideRefresh({ ...base, lastRefreshAt: base.now + 60_000 })).toEqual({ kind: 'refresh' });
  });
});

describe('connectionLost', () => {
  it('is lost after two failed polls in a row, or at once when the browser is offline', () => {
    expect(connectionLost(0, false)).toBe(false);
    expect(connectionLost(1, false)).toBe(false);
    expect(connectionLost(2, false)).toBe(true);
    expect(connectionLost(0, true)).toBe(true);
  });
});

describe('isTextEntry', () => {
  it('counts text-like inputs, textareas, selects and contenteditable', () => {
    expect(isTextEntry({ tagName: 'INPUT', type: 'text' })).toBe(true);
    expect(isTextEntry({ tagName: 'input', type: 'number' })).toBe(true);
    expect(isTextEntry({ tagName: 'INPUT', type: 'search' })).toBe(true);
    expect(isTextEntry({ tagName: 'INPUT' })).toBe(true);
    expect(isTextEntry({ tagName: 'TEXTAREA' })).toBe(true);
    expect(isTextEntry({ tagName: 'SELECT' })).toBe(true);
    expect(isTextEntry({ tagName: 'DIV', isContentEditable: true })).toBe(true);
  });

  it('does not count buttons, links, checkboxes, radios, read-only or disabled fields', () => {
    for (const type of ['button', 'checkbox', 'radio', 'submit', 'range', 'RESET']) expect(isTextEntry({ tagName: 'INPUT', type })).toBe(false);
    expect(isTextEntry({ tagName: 'BUTTON' })).toBe(false);
    expect(isTextEntry({ tagName: 'A' })).toBe(false);
    expect(isTextEntry({ tagName: 'INPUT', type: 'text', readOnly: true })).toBe(false);
    expect(isTextEntry({ tagName: 'TEXTAREA', disabled: true })).toBe(false);
    expect(isTextEntry(null)).toBe(false);
    expect(isTextEntry(undefined)).toBe(false);
  });
});

describe('formatAge', () => {
  it('says seconds under a minute, then minutes, then hours, with a spoken label', () => {
    expect(formatAge(0)).toEqual({ text: 'updated 0s ago', label: 'Page data updated 0 seconds ago' });
    expect(formatAge(1_999)).toEqual({ text: 'updated 1s ago', label: 'Page data updated 1 second ago' });
    expect(formatAge(59_999)).toEqual({ text: 'updated 59s ago', label: 'Page data updated 59 seconds ago' });
    expect(formatAge(60_000)).toEqual({ text: 'updated 1m ago', label: 'Page data updated 1 minute ago' });
    expect(formatAge(3_599_999)).toEqual({ text: 'updated 59m ago', label: 'Page data updated 59 minutes ago' });
    expect(formatAge(7_200_000)).toEqual({ text: 'updated 2h ago', label: 'Page data updated 2 hours ago' });
    // Hours at most: a page left open for two days says so in hours.
    expect(formatAge(49 * 3_600_000)).toEqual({ text: 'updated 49h ago', label: 'Page data updated 49 hours ago' });
  });

  it('never goes negative (the clock moved backwards)', () => {
    expect(formatAge(-5_000).text).toBe('updated 0s ago');
  });
});

describe('formatRenderedAt', () => {
  it('is the UTC time of day, the same on server and client', () => {
    expect(formatRenderedAt('2026-12-01T09:41:07.123Z')).toBe('updated at 09:41:07 UTC');
    expect(formatRenderedAt('not a time')).toBe('updated at an unknown time');
  });
});

describe('liveNote', () => {
  it('says why the page is not updating, lost connection first', () => {
    expect(liveNote(false, null)).toBe('');
    expect(liveNote(true, 'dialog')).toMatch(/^Connection to the dashboard server lost/);
    expect(liveNote(false, 'dialog')).toMatch(/^Newer data is waiting: .*confirmation/);
    expect(liveNote(false, 'editing')).toMatch(/^Newer data is waiting: .*field/);
  });
});

describe('HOLD_SELECTOR', () => {
  it('names the documented data attribute, open dialogs and modal elements', () => {
    expect(HOLD_SELECTOR).toBe('[data-live-refresh-hold], dialog[open], [aria-modal="true"]');
  });
});
