import { describe, expect, it } from 'vitest';
import { isBoundBeyondLoopback } from '../lib/data/exposure';
import { startCommand } from './start';

describe('npm start', () => {
  it('binds 127.0.0.1 by default and tells the server so', () => {
    const { args, env } = startCommand([], { PATH: '/bin', HOSTNAME: 'build-box' });
    expect(args).toEqual(['start', '-H', '127.0.0.1']);
    expect(env.ZONESCOPE_HOST).toBe('127.0.0.1');
    expect(isBoundBeyondLoopback(env)).toBe(false);
  });

  it('binds ZONESCOPE_HOST when set (beyond loopback)', () => {
    const { args, env } = startCommand(['-p', '4000'], { ZONESCOPE_HOST: '0.0.0.0' });
    expect(args).toEqual(['start', '-p', '4000', '-H', '0.0.0.0']);
    expect(isBoundBeyondLoopback(env)).toBe(true);
  });

  it('an explicit -H / --hostname wins and is passed on', () => {
    expect(startCommand(['-H', '10.0.0.5'], {}).env.ZONESCOPE_HOST).toBe('10.0.0.5');
    const long = startCommand(['--hostname=::1'], { ZONESCOPE_HOST: '0.0.0.0' });
    expect(long.args).toEqual(['start', '--hostname=::1']);
    expect(long.env.ZONESCOPE_HOST).toBe('::1');
  });
});
