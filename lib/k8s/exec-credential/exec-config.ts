/**
 * The `exec` section of a kubeconfig user (client.authentication.k8s.io v1 or v1beta1) as zonescope
 * runs it, and its command line as messages show it (values of secret-looking flags hidden).
 */
import { redact } from '../redact';

/** The parsed `exec` section of a kubeconfig user. */
export interface ExecConfig {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: readonly { readonly name: string; readonly value: string }[];
  readonly apiVersion: string;
  readonly installHint: string | null;
  readonly interactiveMode: 'Never' | 'IfAvailable' | 'Always';
  readonly provideClusterInfo: boolean;
}

const API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];

/** Parses a kubeconfig `exec` section; a message when it cannot be used. */
export function parseExecConfig(raw: unknown): ExecConfig | string {
  if (typeof raw !== 'object' || raw === null) return 'its exec section is not an object';
  const exec = raw as Record<string, unknown>;
  const command = exec.command;
  if (typeof command !== 'string' || command.trim() === '') return 'its exec section has no command';
  const args = Array.isArray(exec.args) ? exec.args.map((a) => String(a)) : [];
  const env: { name: string; value: string }[] = [];
  if (Array.isArray(exec.env)) {
    for (const entry of exec.env as unknown[]) {
      const e = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
      if (typeof e.name === 'string' && e.name !== '') env.push({ name: e.name, value: typeof e.value === 'string' ? e.value : String(e.value ?? '') });
    }
  }
  const apiVersion = typeof exec.apiVersion === 'string' ? exec.apiVersion : '';
  if (!API_VERSIONS.includes(apiVersion)) {
    return apiVersion === '' ? 'its exec section has no apiVersion' : `its exec apiVersion "${redact(apiVersion).slice(0, 80)}" is not supported (use ${API_VERSIONS.join(' or ')})`;
  }
  const mode = exec.interactiveMode;
  const interactiveMode = mode === 'Never' || mode === 'Always' || mode === 'IfAvailable' ? mode : 'IfAvailable';
  const installHint = typeof exec.installHint === 'string' && exec.installHint.trim() !== '' ? exec.installHint : null;
  return { command, args, env, apiVersion, installHint, interactiveMode, provideClusterInfo: exec.provideClusterInfo === true };
}

const SECRET_FLAG = /^--?[\w-]*(secret|passw(or)?d|token|key|credential)[\w-]*$/i;

/** The command line for messages: flags named like secrets have their value hidden; bounded. */
export function describeCommand(exec: Pick<ExecConfig, 'command' | 'args'>): string {
  const parts = [exec.command];
  let hideNext = false;
  for (const arg of exec.args) {
    if (hideNext) {
      parts.push('[redacted]');
      hideNext = false;
      continue;
    }
    const eq = arg.indexOf('=');
    if (arg.startsWith('-') && eq > 0 && SECRET_FLAG.test(arg.slice(0, eq))) parts.push(`${arg.slice(0, eq)}=[redacted]`);
    else {
      parts.push(arg);
      hideNext = SECRET_FLAG.test(arg);
    }
  }
  // eslint-disable-next-line no-control-regex
  const text = parts.map((p) => (/[\s"]/.test(p) ? JSON.stringify(p) : p)).join(' ').replace(/[\u0000-\u001f\u007f]/g, ' ');
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}
