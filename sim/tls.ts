/**
 * TLS material for the simulator, generated at start-up: a CA, a server certificate signed by it
 * (for 127.0.0.1, ::1, localhost and any extra names) and a client certificate signed by it
 * (CN = user name, O = group, as the API server reads them). Keys are RSA 2048 made by
 * node:crypto; node-forge builds and signs the certificates (SHA-256).
 *
 * Making RSA keys is the slow part (about a second for three on a busy 2-core machine), so the
 * three key pairs are made once per process and reused; every call issues new certificates, and
 * each CA has a name of its own (`zonescope-sim-ca-<random>`), so a certificate issued by one
 * simulator's CA is not accepted by another simulator.
 */
import { generateKeyPair, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { CertificateField } from 'node-forge';
import forge from 'node-forge';

/** PEM-encoded material of a TLS simulator. */
export interface SimTlsMaterial {
  /** The CA certificate (written into kubeconfigs as `certificate-authority-data`). */
  readonly caCertificate: string;
  readonly serverCertificate: string;
  readonly serverKey: string;
  readonly clientCertificate: string;
  readonly clientKey: string;
  /** Host names and addresses the server certificate is valid for. */
  readonly serverNames: readonly string[];
}

/** Options of {@link generateSimTls}. */
export interface SimTlsOptions {
  /** Names or IP addresses besides 127.0.0.1, ::1 and localhost the server certificate covers. */
  readonly extraNames?: readonly string[];
  /** Client certificate user (CN). Default `zonescope-sim`. */
  readonly clientUser?: string;
  /** Client certificate group (O). Default `system:masters`. */
  readonly clientGroup?: string;
}

const DAY_MS = 86_400_000;

interface KeyPair {
  readonly publicPem: string;
  readonly privatePem: string;
}

/** An RSA 2048 key pair, made off the main thread. */
function keyPair(): Promise<KeyPair> {
  return new Promise((resolve, reject) => {
    generateKeyPair(
      'rsa',
      { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs1', format: 'pem' } },
      (error, publicPem, privatePem) => (error ? reject(error) : resolve({ publicPem, privatePem })),
    );
  });
}

/** The CA, server and client key pairs of this process (made on first use). */
let keys: Promise<[KeyPair, KeyPair, KeyPair]> | undefined;

/** A positive random serial number (hex, high bit clear). */
function serialNumber(): string {
  return `01${randomBytes(15).toString('hex')}`;
}

function certificate(
  subject: CertificateField[],
  issuer: CertificateField[],
  publicPem: string,
  signingPem: string,
  extensions: Record<string, unknown>[],
  validity?: { readonly notBefore: Date; readonly notAfter: Date },
): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicPem);
  cert.serialNumber = serialNumber();
  const now = Date.now();
  cert.validity.notBefore = validity?.notBefore ?? new Date(now - DAY_MS);
  cert.validity.notAfter = validity?.notAfter ?? new Date(now + 365 * DAY_MS);
  cert.setSubject(subject);
  cert.setIssuer(issuer);
  cert.setExtensions(extensions);
  cert.sign(forge.pki.privateKeyFromPem(signingPem), forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

/**
 * Generates a CA with a server and a client certificate.
 * @throws (rejects) Error when an extra name is empty or contains characters no host name has.
 */
export async function generateSimTls(options: SimTlsOptions = {}): Promise<SimTlsMaterial> {
  const names = [...new Set(['127.0.0.1', '::1', 'localhost', ...(options.extraNames ?? [])])];
  for (const name of names) {
    if (isIP(name) === 0 && !/^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(name)) {
      throw new Error(`"${name}" is neither a host name nor an IP address`);
    }
  }
  keys ??= Promise.all([keyPair(), keyPair(), keyPair()]);
  let ca: KeyPair;
  let server: KeyPair;
  let client: KeyPair;
  try {
    [ca, server, client] = await keys;
  } catch (error) {
    keys = undefined;
    throw error;
  }
  const caName = [{ name: 'commonName', value: `zonescope-sim-ca-${randomBytes(6).toString('hex')}` }];
  const caCertificate = certificate(caName, caName, ca.publicPem, ca.privatePem, [
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);

  const serverCertificate = certificate([{ name: 'commonName', value: 'zonescope-sim' }], caName, server.publicPem, ca.privatePem, [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: names.map((name) => (isIP(name) === 0 ? { type: 2, value: name } : { type: 7, ip: name })) },
  ]);

  const clientCertificate = certificate(
    [
      { name: 'commonName', value: options.clientUser ?? 'zonescope-sim' },
      { name: 'organizationName', value: options.clientGroup ?? 'system:masters' },
    ],
    caName,
    client.publicPem,
    ca.privatePem,
    [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', clientAuth: true },
    ],
  );
  return {
    caCertificate,
    serverCertificate,
    serverKey: server.privatePem,
    clientCertificate,
    clientKey: client.privatePem,
    serverNames: names,
  };
}

/**
 * A self-signed server certificate (its own CA) for `names`, with the given validity (default: a
 * day ago to a year ahead), and its key: tests of an unknown CA, a certificate for another host
 * name and an expired certificate. Uses this process's server key pair.
 */
export async function generateSelfSignedServer(options: {
  readonly names: readonly string[];
  readonly notBefore?: Date;
  readonly notAfter?: Date;
}): Promise<{ readonly cert: string; readonly key: string }> {
  keys ??= Promise.all([keyPair(), keyPair(), keyPair()]);
  const [, server] = await keys;
  const subject = [{ name: 'commonName', value: options.names[0] ?? 'zonescope-test' }];
  const now = Date.now();
  const cert = certificate(
    subject,
    subject,
    server.publicPem,
    server.privatePem,
    [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', keyCertSign: true, digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: options.names.map((name) => (isIP(name) === 0 ? { type: 2, value: name } : { type: 7, ip: name })) },
    ],
    { notBefore: options.notBefore ?? new Date(now - DAY_MS), notAfter: options.notAfter ?? new Date(now + 365 * DAY_MS) },
  );
  return { cert, key: server.privatePem };
}
