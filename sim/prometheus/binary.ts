/**
 * Finding the Prometheus binary: `PROMETHEUS_BIN` when set (it must be executable), else
 * `prometheus` on `PATH`, else {@link DEFAULT_PROMETHEUS_BIN}; and the error, with the install
 * hint, when there is none.
 */
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** Where Debian and most packages install the binary. */
export const DEFAULT_PROMETHEUS_BIN = '/usr/bin/prometheus';

/** How to install Prometheus, for messages. */
export const PROMETHEUS_INSTALL_HINT =
  'apt-get install prometheus (Debian/Ubuntu), or download it from https://prometheus.io/download/ and set PROMETHEUS_BIN to the binary';

/** No Prometheus binary was found. */
export class PrometheusNotInstalledError extends Error {
  constructor(detail?: string) {
    super(`Prometheus is not installed${detail ? ` (${detail})` : ''}: ${PROMETHEUS_INSTALL_HINT}`);
    this.name = 'PrometheusNotInstalledError';
  }
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Prometheus binary to run: `PROMETHEUS_BIN` (which must be executable), else `prometheus`
 * on `PATH`, else {@link DEFAULT_PROMETHEUS_BIN}; `null` when there is none.
 * @throws PrometheusNotInstalledError when `PROMETHEUS_BIN` names a file that is not executable.
 */
export function findPrometheus(env: Readonly<Record<string, string | undefined>> = process.env): string | null {
  const explicit = env.PROMETHEUS_BIN;
  if (explicit !== undefined && explicit !== '') {
    if (!isExecutable(explicit)) throw new PrometheusNotInstalledError(`PROMETHEUS_BIN=${explicit} is not an executable file`);
    return explicit;
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, 'prometheus');
    if (isExecutable(candidate)) return candidate;
  }
  return isExecutable(DEFAULT_PROMETHEUS_BIN) ? DEFAULT_PROMETHEUS_BIN : null;
}
