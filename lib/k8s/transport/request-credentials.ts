/**
 * The credentials a connection sends, handed to the redactor (../redact) so that an API server
 * echoing them cannot make them shown or logged: the kubeconfig user's when the connection is
 * made, and those of every request as client-node filled them in (refreshed tokens included).
 */
import type https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { rememberSecret } from '../redact';

/** Hands the current user's credentials from the kubeconfig (token, password, key and cert data, auth-provider tokens) to the redactor. */
export function rememberUserCredentials(kc: KubeConfig): void {
  const user = kc.getCurrentUser();
  if (!user) return;
  rememberSecret(user.token);
  rememberSecret(user.password);
  for (const data of [user.keyData, user.certData]) {
    if (data === undefined || data === '') continue;
    rememberSecret(data); // the kubeconfig's base64 `client-key-data` as written
    rememberSecret(Buffer.from(data, 'base64'));
  }
  for (const [key, value] of Object.entries(user.authProvider?.config ?? {})) {
    if (typeof value === 'string' && /token|secret|password/i.test(key)) rememberSecret(value);
  }
}

/**
 * Hands the credentials of one request's options (as `applyToHTTPSOptions` filled them: the
 * `Authorization` header — static, token-file, auth-provider or exec-plugin token, refreshed ones
 * included — basic auth, client key and certificate, passphrase) to the redactor.
 */
export function rememberRequestCredentials(options: https.RequestOptions): void {
  for (const [key, value] of Object.entries(options.headers ?? {})) {
    if (key.toLowerCase() !== 'authorization' || typeof value !== 'string') continue;
    const credential = value.replace(/^\s*(bearer|basic)\s+/i, '');
    rememberSecret(credential);
    if (/^\s*basic\s/i.test(value)) rememberSecret(Buffer.from(credential, 'base64').toString('utf8'));
  }
  if (typeof options.auth === 'string' && options.auth !== '') {
    rememberSecret(options.auth);
    const colon = options.auth.indexOf(':');
    if (colon >= 0) rememberSecret(options.auth.slice(colon + 1));
  }
  for (const material of [options.key, options.cert, options.pfx, options.passphrase]) {
    for (const item of Array.isArray(material) ? material : [material]) {
      if (typeof item === 'string' || item instanceof Uint8Array) rememberSecret(item);
      else if (typeof item === 'object' && item !== null && 'pem' in item) {
        const pem = (item as { pem?: unknown }).pem;
        if (typeof pem === 'string' || pem instanceof Uint8Array) rememberSecret(pem);
      }
    }
  }
}
