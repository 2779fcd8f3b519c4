import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { SERVER_ENV, SERVER_NODE_FLAGS, serverEnv, serverEnvPrefix, serverNodeArgs } from './node-flags';

describe('the V8 flags of the processes that list a cluster', () => {
  it('go on the command line unless NODE_OPTIONS already sets them (the user wins)', () => {
    expect(serverNodeArgs({})).toEqual(['--max-semi-space-size=32']);
    expect(serverNodeArgs({ NODE_OPTIONS: '--max-old-space-size=640' })).toEqual(['--max-semi-space-size=32']);
    expect(serverNodeArgs({ NODE_OPTIONS: '--max-old-space-size=640 --max-semi-space-size=8' })).toEqual([]);
  });

  it('are the same in the container image and in npm run analyze', () => {
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync('deploy/Dockerfile', 'utf8'))?.[1];
    expect(JSON.parse(cmd ?? '[]')).toEqual(['node', ...SERVER_NODE_FLAGS, 'server.js']);
    const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.analyze).toBe(`${serverEnvPrefix()} node ${SERVER_NODE_FLAGS.join(' ')} scripts/analyze.mjs`);
    expect(scripts.start).toBe(`${serverEnvPrefix()} node ${SERVER_NODE_FLAGS.join(' ')} scripts/start.mjs`);
  });

  it('come with two malloc arenas, in the image, in package.json and in what starts the server as npm start does, unless the user set another number', () => {
    expect(SERVER_ENV).toEqual({ MALLOC_ARENA_MAX: '2' });
    expect(serverEnvPrefix()).toBe('MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2}');
    expect(serverEnv({})).toEqual({ MALLOC_ARENA_MAX: '2' });
    expect(serverEnv({ MALLOC_ARENA_MAX: '' })).toEqual({ MALLOC_ARENA_MAX: '2' });
    expect(serverEnv({ MALLOC_ARENA_MAX: '4' })).toEqual({});
    expect(readFileSync('deploy/Dockerfile', 'utf8')).toMatch(/^ {4}MALLOC_ARENA_MAX=2 \\$/m);
  });
});
