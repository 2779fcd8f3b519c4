/**
 * What a credential plugin's failures say to the user: what to run for the plugin at hand (AWS, GKE,
 * kubelogin, or the kubeconfig's `installHint`), the plugin's own words (bounded and redacted), a
 * login prompt it printed; and the error every failure becomes (`unauthorized`, permanent).
 */
import path from 'node:path';
import type { KubeError } from '../errors';
import { KubeRequestError } from '../errors';
import { redact } from '../redact';
import type { ExecConfig } from './exec-config';
import { describeCommand } from './exec-config';

/** Longest excerpt of the plugin's own message shown. */
const MAX_EXCERPT = 300;

type Tool = 'aws' | 'gke' | 'kubelogin' | 'other';

function toolOf(exec: ExecConfig): Tool {
  const base = path.basename(exec.command).replace(/\.(exe|cmd|bat)$/i, '');
  if (base === 'aws' || base === 'aws-iam-authenticator') return 'aws';
  if (base === 'gke-gcloud-auth-plugin') return 'gke';
  if (base === 'kubelogin') return 'kubelogin';
  return 'other';
}

function awsProfile(exec: ExecConfig): string | null {
  for (let i = 0; i < exec.args.length; i++) {
    const arg = exec.args[i] ?? '';
    if (arg === '--profile') return exec.args[i + 1] ?? null;
    if (arg.startsWith('--profile=')) return arg.slice('--profile='.length);
  }
  return exec.env.find((e) => e.name === 'AWS_PROFILE')?.value ?? null;
}

/** What a situation needs from the user, per plugin. */
export type Situation = 'not-found' | 'failed' | 'login' | 'rejected';

/** What to run, as a sentence (no trailing period), for a plugin and what went wrong. */
export function execHint(exec: ExecConfig, situation: Situation): string {
  const tool = toolOf(exec);
  const profile = tool === 'aws' ? awsProfile(exec) : null;
  const safeProfile = profile !== null && /^[\w.@+-]{1,64}$/.test(profile) ? profile : null;
  if (situation === 'not-found') {
    const base =
      tool === 'gke'
        ? 'Install it with `gcloud components install gke-gcloud-auth-plugin` (or the google-cloud-cli-gke-gcloud-auth-plugin package of apt or dnf) and make sure it is on the PATH of the zonescope process'
        : tool === 'aws'
          ? 'Install the AWS CLI v2 and make sure `aws` is on the PATH of the zonescope process'
          : tool === 'kubelogin'
            ? 'Install kubelogin (`az aks install-cli`, or a release from github.com/Azure/kubelogin) and make sure it is on the PATH of the zonescope process'
            : 'Install it, or put its directory on the PATH of the zonescope process';
    return exec.installHint === null ? base : `${base}. The kubeconfig says: ${redact(exec.installHint).slice(0, MAX_EXCERPT)}`;
  }
  if (situation === 'rejected') {
    if (tool === 'aws') return 'Check that the IAM identity it returns has access to this cluster (EKS access entries or the aws-auth ConfigMap) and that the cluster name and region in its arguments are right';
    if (tool === 'gke') return 'Check that the Google account of `gcloud auth list` has access to this cluster (IAM or RBAC)';
    if (tool === 'kubelogin') return 'Check that the Azure identity it logs in as has access to this cluster, then run `az login` again';
    return 'Check that the identity the plugin logs in as has access to this cluster';
  }
  if (tool === 'aws') {
    return safeProfile !== null
      ? `Run \`aws sso login --profile ${safeProfile}\` in a terminal (or refresh that profile's credentials otherwise)`
      : 'Run `aws sso login` in a terminal (or refresh the AWS credentials of the default profile otherwise)';
  }
  if (tool === 'gke') return 'Run `gcloud auth login` in a terminal (and `gcloud config set project …` when the project is not set)';
  if (tool === 'kubelogin') return 'Run `az login` in a terminal, then `kubelogin convert-kubeconfig -l azurecli` so that kubelogin reuses that login without a prompt';
  return `Run \`${describeCommand(exec)}\` in a terminal to see what it needs`;
}

/** Ends a sentence with a period unless it ends with punctuation already. */
export function sentence(text: string): string {
  return /[.!?…]$/.test(text) ? text : `${text}.`;
}

/** The plugin's own message: the last non-empty lines of stderr, redacted and bounded. */
export function excerpt(stderr: string): string {
  const lines = stderr.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  let text = '';
  for (let i = lines.length - 1; i >= 0 && text.length < MAX_EXCERPT; i--) text = text === '' ? (lines[i] ?? '') : `${lines[i] ?? ''} ${text}`;
  const safe = redact(text);
  return safe.length > MAX_EXCERPT ? `…${safe.slice(safe.length - MAX_EXCERPT + 1)}` : safe;
}

const URL_PATTERN = /https?:\/\/[^\s"'<>]+/i;
const DEVICE_CODE = /\b(?:code|user[ _-]?code)\b\W{1,5}([A-Z0-9]{4,}(?:-[A-Z0-9]{4,})*)\b/i;

/** The line of `output` asking the user to log in (a URL or a device code), redacted; `null` when none. */
export function loginPrompt(output: string): string | null {
  for (const line of output.split(/\r?\n/)) {
    if (URL_PATTERN.test(line) || DEVICE_CODE.test(line)) {
      const safe = redact(line.trim());
      return safe.length > MAX_EXCERPT ? `${safe.slice(0, MAX_EXCERPT - 1)}…` : safe;
    }
  }
  return null;
}

export function credentialError(message: string): KubeRequestError {
  const error: KubeError = { kind: 'unauthorized', reason: 'CredentialPlugin', message, permanent: true };
  return new KubeRequestError(error);
}
