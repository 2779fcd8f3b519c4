/**
 * Redaction of credentials in messages: the credentials of the active connections are remembered
 * (every form they may appear in), and {@link redact} replaces them, and anything shaped like a
 * credential, in every message that may be shown or logged. Process-wide state: the remembered
 * credentials (bounded, least recently used dropped first).
 */

/** Longest message {@link redact} returns (longer ones are cut with `…`). */
const MAX_MESSAGE_LENGTH = 500;

/** Remembered credentials shorter than this are ignored (they would mangle ordinary words). */
export const MIN_SECRET_LENGTH = 6;

/** At most this many credentials are remembered (least recently used dropped first; rotated tokens stay a while). */
const MAX_SECRETS = 64;

/** Remembered credentials (trimmed raw value → every form of it), least recently used first. */
const secrets = new Map<string, readonly string[]>();
/** Every form of every remembered credential, longest first (a form containing another is replaced whole); rebuilt lazily. */
let sortedForms: readonly string[] | null = null;

const PEM_BLOCK = /-----BEGIN [A-Z0-9 ]+-----([\s\S]*?)-----END [A-Z0-9 ]+-----/g;

/** The forms a credential may appear in: raw, URL-encoded, base64 (both alphabets, with and without padding), PEM bodies and lines. */
function formsOf(trimmed: string, bytes: Buffer): string[] {
  const base64 = bytes.toString('base64');
  const forms = new Set([trimmed, encodeURIComponent(trimmed), base64, base64.replace(/=+$/, ''), bytes.toString('base64url'), Buffer.from(trimmed).toString('base64')]);
  for (const match of trimmed.matchAll(PEM_BLOCK)) {
    const lines = (match[1] ?? '').split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '' && !line.includes(':'));
    forms.add(lines.join(''));
    for (const line of lines) if (line.length >= 16) forms.add(line);
  }
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

/**
 * Remembers a credential of the active connection (a bearer token, a basic-auth password, client
 * key or certificate data…) so that {@link redact} replaces it wherever it appears, also
 * URL-encoded and base64 (standard and URL-safe, with and without padding); for PEM data also the
 * base64 body and each of its lines. Values shorter than {@link MIN_SECRET_LENGTH} are ignored.
 * Cheap when called again with a known value (connections call it on every request, so refreshed
 * tokens are picked up); the {@link MAX_SECRETS} most recently used credentials are kept.
 */
export function rememberSecret(value: string | Uint8Array | null | undefined): void {
  if (value === null || value === undefined) return;
  const text = typeof value === 'string' ? value : Buffer.from(value).toString('utf8');
  const trimmed = text.trim();
  if (trimmed.length < MIN_SECRET_LENGTH) return;
  const known = secrets.get(trimmed);
  if (known !== undefined) {
    // Still in use: move it to the most recently used end.
    secrets.delete(trimmed);
    secrets.set(trimmed, known);
    return;
  }
  secrets.set(trimmed, formsOf(trimmed, typeof value === 'string' ? Buffer.from(trimmed) : Buffer.from(value)));
  while (secrets.size > MAX_SECRETS) {
    const oldest = secrets.keys().next().value;
    if (oldest === undefined) break;
    secrets.delete(oldest);
  }
  sortedForms = null;
}

/** Forgets every remembered credential (tests; a connection replaced by one with other credentials). */
export function forgetSecrets(): void {
  secrets.clear();
  sortedForms = null;
}

function replaceSecrets(message: string): string {
  if (secrets.size === 0) return message;
  sortedForms ??= [...new Set([...secrets.values()].flat())].sort((a, b) => b.length - a.length);
  let out = message;
  for (const form of sortedForms) if (out.includes(form)) out = out.split(form).join('[redacted]');
  return out;
}

/** Characters of a token-like value. */
const VALUE = '[A-Za-z0-9._~+/=-]';
/**
 * A word that looks like a credential rather than an ordinary word: at least 6 characters with a
 * digit or punctuation, 12 with mixed case, or 16 of any kind ("token is expired" stays).
 */
const CREDENTIAL_WORD = `(?:(?=${VALUE}*[0-9._~+/=-])${VALUE}{6,}|(?=${VALUE}*[a-z])(?=${VALUE}*[A-Z])${VALUE}{12,}|${VALUE}{16,})`;

/** Names whose value is a credential (substring match, case-insensitive): `AWS_SECRET_ACCESS_KEY`, `access_token`, `X-Api-Key`… */
const SECRET_NAME = 'token|passw(?:or)?d|pwd|secret|credential|authorization|cookie|signature|api[_-]?key|apikey|(?:access|private|secret|signing|client|account|master|encryption)[_-]?key';

const PATTERNS: readonly (readonly [RegExp, string | ((...groups: never[]) => string)])[] = [
  // PEM private keys, whole or cut off, and base64 PEM (`LS0tLS1CRUdJTi` is "-----BEGIN").
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g, '[redacted private key]'],
  [/LS0tLS1CRUdJTi[A-Za-z0-9+/=]*/g, '[redacted]'],
  // JWTs (service-account and OIDC tokens).
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+\.?[A-Za-z0-9_-]*/g, '[redacted]'],
  // Well-known key shapes: AWS access key ids, GitHub tokens.
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, '[redacted]'],
  [/\bgh[pousr]_[A-Za-z0-9]{30,}/g, '[redacted]'],
  // `Bearer <value>`, `Basic <value>`, `token <value>` (an authenticator echoing what it got).
  [new RegExp(`\\b(bearer|basic|token)(\\s+)${CREDENTIAL_WORD}`, 'gi'), '$1$2[redacted]'],
  // `name=value`, `name: value`, `"name": "value"`, `?name=value&` with a credential-like name,
  // and kubeconfig `*-data:` fields (`client-key-data: …`).
  [
    new RegExp(`(?<![\\w.-])((?:[\\w.-]*?(?:${SECRET_NAME})[\\w.-]*|[\\w.-]+-data|sig|pass))(["']?\\s*[:=]\\s*)("[^"]*"|'[^']*'|[^\\s"',;&]+)`, 'gi'),
    (whole: string, name: string, separator: string, value: string, offset: number, input: string) => {
      const bare = value.replace(/^["']|["']$/g, '');
      // Already redacted whole (by a remembered credential or an earlier pattern). A marker with
      // more around it ("[redacted]2": a remembered credential inside a longer value) is redacted
      // again, whole, so no end of the value survives.
      if (/^\[redacted[^\]]*\]$/.test(bare) || /^(bearer|basic|negotiate)$/i.test(bare)) return whole;
      // Prose, not a value: "Error loading SSO Token: Token for dev does not exist" (a capitalised
      // word after ": ", followed by more lower-case words).
      if (/^:\s$/.test(separator) && /^[A-Z][a-z]{1,11}$/.test(value) && /^ [a-z]{2,} [a-z]/.test(input.slice(offset + whole.length))) return whole;
      const quote = value.startsWith('"') || value.startsWith("'") ? value.charAt(0) : '';
      return `${name}${separator}${quote}[redacted]${quote}`;
    },
  ],
  // URL user-info.
  [/(\w+:\/\/)[^/\s:@]+(:[^/\s@]*)?@/g, '$1[redacted]@'],
];

/**
 * Redacts what could be a credential inside a message and bounds its length: first the active
 * connection's own credentials (see {@link rememberSecret}), then anything shaped like one —
 * bearer/basic/`token <value>`, JWTs, PEM private keys (also base64), AWS access key ids,
 * GitHub tokens, `name=value` / `name: value` pairs and query parameters whose name mentions
 * token, password, secret, credential, authorization, cookie, signature or an api/access/private
 * key (case-insensitive), kubeconfig `*-data:` fields, URL user-info. Every message that may be
 * shown or logged passes here.
 */
export function redact(message: string): string {
  // Cut very long messages first (cost), well beyond the shown length so no partial credential survives the final cut.
  let out = replaceSecrets(message.length > MAX_MESSAGE_LENGTH * 8 ? message.slice(0, MAX_MESSAGE_LENGTH * 8) : message);
  for (const [pattern, replacement] of PATTERNS) {
    out = typeof replacement === 'string' ? out.replace(pattern, replacement) : out.replace(pattern, replacement as (...groups: string[]) => string);
  }
  // eslint-disable-next-line no-control-regex
  out = out.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ').trim();
  return out.length > MAX_MESSAGE_LENGTH ? `${out.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : out;
}
