/**
 * `npm run checks`: the static checks of `npm test` — lint (`npm run lint`) and the type check
 * (`npm run typecheck`) — side by side. Each is one process on one core (ESLint without
 * type-aware rules reads no build output, and the type check writes only Next's route types),
 * so on the two cores CI has they take as long as the slower of them instead of both in a row.
 *
 * Each one's output is printed whole when it ends, under a line that names it and says how long it
 * took, so the two never interleave. Exits 1 when either failed (after both ended).
 */
import { spawn } from 'node:child_process';

interface Check {
  readonly name: string;
  readonly script: string;
}

const CHECKS: readonly Check[] = [
  { name: 'lint', script: 'lint' },
  { name: 'typecheck', script: 'typecheck' },
];

interface Outcome {
  readonly name: string;
  readonly ok: boolean;
  readonly seconds: number;
  readonly output: string;
}

function run(check: Check): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const child = spawn('npm', ['run', '--silent', check.script], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    const done = (ok: boolean, extra = '') =>
      resolve({ name: check.name, ok, seconds: (performance.now() - started) / 1000, output: Buffer.concat(chunks).toString('utf8') + extra });
    child.on('error', (error) => done(false, `\n${check.name}: could not start npm: ${error.message}\n`));
    child.on('close', (code, signal) => done(code === 0, code === 0 ? '' : `\n${check.name}: exited with ${signal ?? code}\n`));
  });
}

async function main(): Promise<void> {
  const pending = CHECKS.map(async (check) => {
    const outcome = await run(check);
    process.stdout.write(`== ${outcome.name}: ${outcome.ok ? 'ok' : 'FAILED'} in ${outcome.seconds.toFixed(1)} s\n${outcome.output}`);
    if (outcome.output.length > 0 && !outcome.output.endsWith('\n')) process.stdout.write('\n');
    return outcome;
  });
  const outcomes = await Promise.all(pending);
  const failed = outcomes.filter((outcome) => !outcome.ok).map((outcome) => outcome.name);
  if (failed.length > 0) {
    process.stderr.write(`checks: ${failed.join(' and ')} failed\n`);
    process.exitCode = 1;
  }
}

void main();
