/**
 * The link benchmark's arguments: defaults, each option, and clear refusals of bad values.
 */
import { describe, expect, it } from 'vitest';
import { parseLinkArgs } from './link';

describe('parseLinkArgs', () => {
  it('defaults to realistic-L over a 20 ms, 100 Mbit/s link, once, every case', () => {
    expect(parseLinkArgs([])).toEqual({ scenario: 'generated:realistic-L', rttMs: 20, mbps: 100, runs: 1, cases: ['loopback-on', 'loopback-off', 'link-on', 'link-off'] });
  });

  it('takes every option', () => {
    expect(parseLinkArgs(['--scenario', 'generated:realistic-M', '--rtt-ms', '50', '--mbps', '10', '--runs', '3', '--cases', 'link-on,link-off'])).toEqual({
      scenario: 'generated:realistic-M',
      rttMs: 50,
      mbps: 10,
      runs: 3,
      cases: ['link-on', 'link-off'],
    });
  });

  it('refuses bad values and unknown arguments, naming them', () => {
    expect(parseLinkArgs(['--rtt-ms', '-1'])).toMatch(/--rtt-ms/);
    expect(parseLinkArgs(['--mbps', '0'])).toMatch(/--mbps/);
    expect(parseLinkArgs(['--runs', '1.5'])).toMatch(/--runs/);
    expect(parseLinkArgs(['--cases', 'loopback-on,wifi'])).toMatch(/--cases/);
    expect(parseLinkArgs(['--scenario'])).toMatch(/needs a value/);
    expect(parseLinkArgs(['--fast', '1'])).toMatch(/unknown argument: --fast/);
  });
});
