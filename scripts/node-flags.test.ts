import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { IMAGE_NODE_FLAGS, SERVER_NODE_FLAGS, serverNodeArgs } from './node-flags';

describe('the V8 flags of the processes that list a cluster', () => {
  it('go on the command line unless NODE_OPTIONS already sets them (the user wins)', () => {
    expect(serverNodeArgs({})).toEqual(['--max-semi-space-size=32', '--max-old-space-size=1536']);
    expect(serverNodeArgs({ NODE_OPTIONS: '--max-old-space-size=640' })).toEqual(['--max-semi-space-size=32']);
    expect(serverNodeArgs({ NODE_OPTIONS: '--max-old-space-size=640 --max-semi-space-size=8' })).toEqual([]);
  });

  it('are the same in npm start and npm run analyze; the image leaves the heap cap to NODE_OPTIONS (the manifest sets it)', () => {
    const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toBe(`node ${SERVER_NODE_FLAGS.join(' ')} scripts/start.mjs`);
    expect(scripts.analyze).toBe(`node ${SERVER_NODE_FLAGS.join(' ')} scripts/analyze.mjs`);
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync('deploy/Dockerfile', 'utf8'))?.[1];
    expect(JSON.parse(cmd ?? '[]')).toEqual(['node', ...IMAGE_NODE_FLAGS, 'server.js']);
    expect(IMAGE_NODE_FLAGS.some((flag) => flag.startsWith('--max-old-space-size'))).toBe(false);
    expect(readFileSync('deploy/kubernetes/base/deployment.yaml', 'utf8')).toMatch(/name: NODE_OPTIONS\n\s+value: "--max-old-space-size=\d+"/);
  });
});
