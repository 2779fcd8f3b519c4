/**
 * Status vocabulary: every tone pairs a colour with an icon and text, so the signal survives
 * colour blindness, greyscale printing and screen readers.
 */
import type { ReactNode } from 'react';
import { CheckIcon, ErrorIcon, InfoIcon, MinusIcon, WarningIcon } from './icons';

export type Tone = 'ok' | 'warn' | 'error' | 'info' | 'neutral';

export const TONE_TEXT: Record<Tone, string> = {
  ok: 'text-emerald-800 dark:text-emerald-300',
  warn: 'text-amber-800 dark:text-amber-300',
  error: 'text-red-800 dark:text-red-300',
  info: 'text-sky-800 dark:text-sky-300',
  neutral: 'text-slate-700 dark:text-slate-300',
};

export const TONE_BOX: Record<Tone, string> = {
  ok: 'border-emerald-300 bg-emerald-50 text-emerald-950 dark:border-emerald-800 dark:bg-emerald-950/50 dark:text-emerald-50',
  warn: 'border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-700 dark:bg-amber-950/50 dark:text-amber-50',
  error: 'border-red-300 bg-red-50 text-red-950 dark:border-red-800 dark:bg-red-950/50 dark:text-red-50',
  info: 'border-sky-300 bg-sky-50 text-sky-950 dark:border-sky-800 dark:bg-sky-950/50 dark:text-sky-50',
  neutral: 'border-slate-300 bg-slate-50 text-slate-900 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100',
};

const BADGE: Record<Tone, string> = {
  ok: 'bg-emerald-100 text-emerald-900 ring-emerald-300 dark:bg-emerald-900/60 dark:text-emerald-100 dark:ring-emerald-700',
  warn: 'bg-amber-100 text-amber-900 ring-amber-300 dark:bg-amber-900/60 dark:text-amber-100 dark:ring-amber-700',
  error: 'bg-red-100 text-red-900 ring-red-300 dark:bg-red-900/60 dark:text-red-100 dark:ring-red-700',
  info: 'bg-sky-100 text-sky-900 ring-sky-300 dark:bg-sky-900/60 dark:text-sky-100 dark:ring-sky-700',
  neutral: 'bg-slate-100 text-slate-800 ring-slate-300 dark:bg-slate-800 dark:text-slate-200 dark:ring-slate-600',
};

/** The icon of a tone. */
export function ToneIcon({ tone, className }: { readonly tone: Tone; readonly className?: string }) {
  const cls = className ?? 'h-4 w-4 shrink-0';
  switch (tone) {
    case 'ok':
      return <CheckIcon className={cls} />;
    case 'warn':
      return <WarningIcon className={cls} />;
    case 'error':
      return <ErrorIcon className={cls} />;
    case 'info':
      return <InfoIcon className={cls} />;
    default:
      return <MinusIcon className={cls} />;
  }
}

/** A small pill: icon + text. */
export function Badge({ tone, children, title, className }: { readonly tone: Tone; readonly children: ReactNode; readonly title?: string; readonly className?: string }) {
  return (
    <span title={title} className={`inline-flex shrink-0 items-center gap-1 whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${BADGE[tone]} ${className ?? ''}`}>
      <ToneIcon tone={tone} className="h-3.5 w-3.5 shrink-0" />
      {children}
    </span>
  );
}

/** A boxed message with an icon (callout). */
export function Callout({ tone, title, children, role, className }: { readonly tone: Tone; readonly title?: ReactNode; readonly children?: ReactNode; readonly role?: 'status' | 'alert'; readonly className?: string }) {
  return (
    <div role={role} className={`flex gap-3 rounded-md border p-3 ${TONE_BOX[tone]} ${className ?? ''}`}>
      <ToneIcon tone={tone} className={`mt-0.5 h-5 w-5 shrink-0 ${TONE_TEXT[tone]}`} />
      <div className="min-w-0 flex-1 space-y-1 text-sm">
        {title ? <p className="font-semibold">{title}</p> : null}
        {children}
      </div>
    </div>
  );
}

/** Severity of a lint/note → tone. */
export function severityTone(severity: 'error' | 'warning' | 'info'): Tone {
  return severity === 'error' ? 'error' : severity === 'warning' ? 'warn' : 'info';
}
