/**
 * For the bench's smoke tests: runs one of the bench scripts as its own Node process (through
 * tsx, from the project root), collecting stdout and stderr; past `timeoutMs` it is sent SIGINT
 * (each bench stops its own children on it) and the run fails with the end of its stderr.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

export function runBenchScript(script: string, args: readonly string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGINT');
      reject(new Error(`${script} did not finish within ${timeoutMs} ms:\n${stderr.slice(-2000)}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
