#!/usr/bin/env node
// The simulator's exec credential plugin (kubeconfig `users[].user.exec`, as kubectl and
// client-node run it): `node sim/exec-plugin.mjs TOKEN_FILE` prints an ExecCredential
// (client.authentication.k8s.io/v1) whose token is the content of TOKEN_FILE, valid for ten
// minutes. The simulator writes that file at start-up and rewrites it when its token rotates.
// Plain JavaScript on purpose: it must run with `node` alone, from a fresh clone.
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (file === undefined || file === '') {
  process.stderr.write('usage: node sim/exec-plugin.mjs TOKEN_FILE\n');
  process.exit(2);
}
let token;
try {
  token = readFileSync(file, 'utf8').trim();
} catch (error) {
  process.stderr.write(`exec-plugin: cannot read the token file ${file} (${error && error.code ? error.code : 'error'})\n`);
  process.exit(1);
}
if (token === '') {
  process.stderr.write(`exec-plugin: the token file ${file} is empty\n`);
  process.exit(1);
}
const expirationTimestamp = new Date(Date.now() + 10 * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
process.stdout.write(
  `${JSON.stringify({
    apiVersion: 'client.authentication.k8s.io/v1',
    kind: 'ExecCredential',
    status: { token, expirationTimestamp },
  })}\n`,
);
