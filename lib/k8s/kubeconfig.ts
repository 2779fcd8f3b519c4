/**
 * Kubeconfig files read as kubectl reads them: a `KUBECONFIG` list merged file by file (missing and
 * empty files skipped, the first definition of a name winning), paths relative to the file that
 * names them, a user's `tokenFile` honoured (./token-file). Problems are {@link KubeconfigError}s
 * whose messages name files and fields, never credentials.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { Cluster, Context, User } from '@kubernetes/client-node';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { errorCode } from './errors';
import { tokenFileAuthProvider } from './token-file';

/** A kubeconfig or in-cluster problem, with a message fit to show (files and fields, never credentials). */
export class KubeconfigError extends Error {}

/** A user's fields client-node does not keep: `tokenFile` (it only reads `token-file`, once). */
function rawUsers(document: unknown): Map<string, { tokenFile?: string }> {
  const users = new Map<string, { tokenFile?: string }>();
  const list = typeof document === 'object' && document !== null ? (document as { users?: unknown }).users : undefined;
  if (!Array.isArray(list)) return users;
  for (const entry of list as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { name, user } = entry as { name?: unknown; user?: unknown };
    if (typeof name !== 'string' || typeof user !== 'object' || user === null) continue;
    const tokenFile = (user as { tokenFile?: unknown }).tokenFile;
    users.set(name, typeof tokenFile === 'string' && tokenFile !== '' ? { tokenFile } : {});
  }
  return users;
}

/**
 * The document re-serialised with `user: {}` where a user entry's `user` is empty (`user:` with
 * nothing after it is YAML null): kubectl reads it as a user without credentials, client-node
 * would fail later with a raw TypeError from deep inside. `null` when no entry needs it.
 */
function withEmptyUsers(document: object): string | null {
  const users = (document as { users?: unknown }).users;
  if (!Array.isArray(users)) return null;
  let changed = false;
  const fixed = users.map((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return entry;
    const user = (entry as { user?: unknown }).user;
    if (user !== null && user !== undefined) return entry;
    changed = true;
    return { ...entry, user: {} };
  });
  return changed ? stringifyYaml({ ...document, users: fixed }) : null;
}

/**
 * One kubeconfig document as client-node reads it, with kubectl's file semantics added: relative
 * `certificate-authority`, `client-certificate`, `client-key` and `tokenFile` paths, and an exec
 * `command` with a path separator, are resolved against `dir` (the folder of the file that
 * defines them; bare command names are looked up in PATH when run); `tokenFile` is honoured,
 * re-read every minute as client-go does (./token-file), and wins over `token`. `null` for an
 * empty document.
 */
export function parseKubeconfig(text: string, dir: string | null, what: string): KubeConfig | null {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch {
    throw new KubeconfigError(`Cannot load ${what}: it is not valid YAML.`);
  }
  if (document === null || document === undefined) return null;
  if (typeof document !== 'object' || Array.isArray(document)) throw new KubeconfigError(`Cannot load ${what}: it is not a kubeconfig (a YAML mapping).`);
  const kc = new KubeConfig();
  try {
    kc.loadFromString(withEmptyUsers(document) ?? text);
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    const field = /^(clusters|users|contexts)\[\d+\]\.[\w.]+ is missing$/.test(message) ? `: ${message}` : '';
    throw new KubeconfigError(`Cannot load ${what}${field || ': it is not a valid kubeconfig'}.`);
  }
  if (dir !== null) kc.makePathsAbsolute(dir);
  const resolve = (file: string): string => (dir === null || path.isAbsolute(file) ? file : path.join(dir, file));
  const extra = rawUsers(document);
  const users = kc.getUsers().map((user): User => {
    let next: User = user;
    const tokenFile = extra.get(user.name)?.tokenFile;
    if (tokenFile !== undefined && !user.authProvider && !user.exec) {
      next = { ...next, token: undefined, authProvider: tokenFileAuthProvider(resolve(tokenFile)) };
    }
    const exec = next.exec as { command?: unknown } | null | undefined;
    if (exec && typeof exec.command === 'string' && /[\\/]/.test(exec.command) && !path.isAbsolute(exec.command)) {
      next = { ...next, exec: { ...exec, command: resolve(exec.command) } };
    }
    return next;
  });
  kc.loadFromOptions({ clusters: kc.getClusters(), contexts: kc.getContexts(), users, currentContext: kc.getCurrentContext() });
  return kc;
}

/**
 * Why a kubeconfig file that exists cannot be read, in words: mostly a file mounted for another
 * user (a container running as a non-root uid, a Secret volume of mode 0600 owned by root).
 */
function unreadableHint(code: string | undefined): string {
  if (code === 'EACCES' || code === 'EPERM') {
    const uid = process.getuid?.();
    const gid = process.getgid?.();
    return `: this process${uid !== undefined ? ` (uid ${uid}, gid ${gid ?? '?'})` : ''} may not read it; make it readable to that user or group (for a Secret volume: defaultMode 0440 and the Pod's fsGroup)`;
  }
  if (code === 'EISDIR') return ': it is a folder, not a file';
  return '';
}

/**
 * The files of a `KUBECONFIG` list merged as kubectl merges them: missing and empty files are
 * skipped, the first file to define a name (cluster, user, context) or `current-context` wins.
 * Fails when none of the files exists, naming them.
 */
export function loadKubeconfigFiles(list: string): KubeConfig {
  const files = list.split(path.delimiter).filter((f) => f !== '');
  if (files.length === 0) throw new KubeconfigError('Cannot load the kubeconfig: no kubeconfig file was given.');
  const clusters: Cluster[] = [];
  const users: User[] = [];
  const contexts: Context[] = [];
  let currentContext = '';
  const missing: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT') {
        missing.push(file);
        continue;
      }
      throw new KubeconfigError(`Cannot load kubeconfig ${file}${code !== undefined ? ` (${code})` : ''}${unreadableHint(code)}.`);
    }
    const kc = parseKubeconfig(text, path.dirname(path.resolve(file)), `kubeconfig ${file}`);
    if (kc === null) continue;
    for (const cluster of kc.getClusters()) if (!clusters.some((c) => c.name === cluster.name)) clusters.push(cluster);
    for (const user of kc.getUsers()) if (!users.some((u) => u.name === user.name)) users.push(user);
    for (const context of kc.getContexts()) if (!contexts.some((c) => c.name === context.name)) contexts.push(context);
    if (!currentContext) currentContext = kc.getCurrentContext() ?? '';
  }
  if (missing.length === files.length) {
    throw new KubeconfigError(
      files.length === 1 ? `Cannot load kubeconfig ${files[0] ?? ''} (ENOENT).` : `Cannot load the kubeconfig: none of its files exists (${files.join(', ')}).`,
    );
  }
  const kc = new KubeConfig();
  kc.loadFromOptions({ clusters, users, contexts, currentContext });
  return kc;
}
