/**
 * What every part of a `npm run bench` run shares: the repository root (children start there),
 * the progress log on stderr (`bench: …`; stdout is kept for the tables and the JSON line), a free
 * loopback port, the machine line printed beside the figures, and the environment a child process
 * gets — the caller's, without its zonescope settings or kubeconfig, so a child sees only what the
 * run gives it.
 */
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** One progress line on stderr. */
export function log(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The environment of a child without zonescope settings of the caller. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('ZONESCOPE_') && key !== 'KUBECONFIG') env[key] = value;
  return { ...env, NEXT_TELEMETRY_DISABLED: '1', ...extra } as unknown as NodeJS.ProcessEnv;
}

/** The machine the figures were measured on: cores, memory, Node.js release. */
export function machineLine(): string {
  return `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`;
}
