/**
 * The verdict under the Overview's hint counts (./hints-sync.ts): in sync, or which Services wait
 * for the controller, carry hints it would remove or would rewrite — each group naming its first
 * Services with links to their pages, and the Services table filtered to them where that filter
 * lists exactly them ("Out of sync").
 */
import Link from 'next/link';

import { formatCount, serviceHref } from '../ui/format';
import { LINK } from '../ui/panel';
import { TONE_TEXT, ToneIcon } from '../ui/status';
import type { HintsSync } from './hints-sync';
import { hintsSyncSentence } from './hints-sync';

/** Services named per group; the rest are counted. */
const NAMED = 3;

/** The Services table filtered to those out of sync, when that filter lists exactly them. */
export const OUT_OF_SYNC_PATH = '/services?attention=1&reason=out-of-sync';

function Named({ label, keys, href }: { readonly label: string; readonly keys: readonly string[]; readonly href: (path: string) => string }) {
  if (keys.length === 0) return null;
  const shown = keys.slice(0, NAMED);
  return (
    <li>
      <span className="text-slate-600 dark:text-slate-400">{label}: </span>
      {shown.map((key, i) => {
        const slash = key.indexOf('/');
        return (
          <span key={key}>
            {i > 0 ? ', ' : null}
            <Link href={href(serviceHref(key.slice(0, slash), key.slice(slash + 1)))} className={`${LINK} font-mono`}>
              {key}
            </Link>
          </span>
        );
      })}
      {keys.length > shown.length ? <> and {formatCount(keys.length - shown.length)} more</> : null}
    </li>
  );
}

export function HintsSyncVerdict({ sync, href }: { readonly sync: HintsSync; readonly href: (path: string) => string }) {
  const { tone, text } = hintsSyncSentence(sync);
  return (
    <div className="space-y-1 text-sm" data-testid="hints-verdict">
      <p className={`flex items-start gap-1.5 font-medium ${TONE_TEXT[tone]}`}>
        <ToneIcon tone={tone} className="mt-0.5 h-4 w-4 shrink-0" />
        <span>{text}</span>
      </p>
      {tone === 'warn' ? (
        <ul className="space-y-0.5 pl-5 text-xs">
          <Named label="Waiting" keys={sync.waiting} href={href} />
          <Named label="To be removed" keys={sync.removing} href={href} />
          <Named label="To be rewritten" keys={sync.rewriting} href={href} />
          {sync.tableFilterMatches ? (
            <li>
              <Link href={href(OUT_OF_SYNC_PATH)} className={LINK}>
                All of them in the Services table
              </Link>
            </li>
          ) : null}
        </ul>
      ) : null}
    </div>
  );
}
