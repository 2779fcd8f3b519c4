/**
 * What a credential plugin returns: its stdout read as an ExecCredential (a bearer token or a client
 * certificate and key, with an optional expiry), or what is wrong with it.
 */
import { redact } from '../redact';

/** A credential a plugin returned. */
export interface ExecCredential {
  readonly token: string | null;
  readonly clientCertificateData: string | null;
  readonly clientKeyData: string | null;
  /** `status.expirationTimestamp` in ms since the epoch; `null` when the plugin gave none. */
  readonly expiresAt: number | null;
}

/** Parses a plugin's stdout into a credential; a message saying what is wrong otherwise. */
export function parseExecCredential(stdout: string, apiVersion: string): ExecCredential | string {
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    return stdout.trim() === '' ? 'it printed nothing on stdout' : 'its output is not JSON';
  }
  if (typeof value !== 'object' || value === null) return 'its output is not an ExecCredential object';
  const object = value as Record<string, unknown>;
  if (object.kind !== 'ExecCredential') return 'its output is not of kind ExecCredential';
  if (object.apiVersion !== apiVersion) return `its output has apiVersion "${redact(String(object.apiVersion ?? '')).slice(0, 80)}", the kubeconfig asks for "${apiVersion}"`;
  const status = (typeof object.status === 'object' && object.status !== null ? object.status : {}) as Record<string, unknown>;
  const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
  const token = text(status.token);
  const clientCertificateData = text(status.clientCertificateData);
  const clientKeyData = text(status.clientKeyData);
  if ((clientCertificateData === null) !== (clientKeyData === null)) return 'it returned a client certificate without its key (or a key without its certificate)';
  if (token === null && clientCertificateData === null) return 'it returned neither a token nor a client certificate';
  let expiresAt: number | null = null;
  if (status.expirationTimestamp !== undefined && status.expirationTimestamp !== null) {
    expiresAt = typeof status.expirationTimestamp === 'string' ? Date.parse(status.expirationTimestamp) : Number.NaN;
    if (Number.isNaN(expiresAt)) return 'its expirationTimestamp is not an RFC 3339 time';
  }
  return { token, clientCertificateData, clientKeyData, expiresAt };
}
