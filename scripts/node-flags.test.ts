import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { SERVER_NODE_FLAGS, serverNodeArgs } from './node-flags';

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
    expect(scripts.analyze).toBe(`node ${SERVER_NODE_FLAGS.join(' ')} scripts/analyze.mjs`);
  });
});
