'use client';

/**
 * Primary navigation with the active section marked (`aria-current="page"`, underline and weight),
 * in the current cluster: under `/c/{id}/…` the links keep the prefix and the section is matched
 * on the path without it.
 */
import Link from 'next/link';
import { usePathname } from 'next/navigation';

import { stripClusterBase, withClusterBase } from '@/lib/shared/cluster-path';
import { useClusterBase } from './cluster-base';

const ITEMS = [
  { href: '/', label: 'Overview', match: (path: string) => path === '/' },
  { href: '/services', label: 'Services', match: (path: string) => path === '/services' || path.startsWith('/services/') },
  { href: '/dataplane', label: 'Dataplane', match: (path: string) => path.startsWith('/dataplane') },
] as const;

/** Every cluster side by side: not per cluster, so never under a `/c/{id}` prefix. */
const FLEET = { href: '/fleet', label: 'Fleet', match: (path: string) => path === '/fleet', global: true } as const;

/** `fleet`: there is more than one cluster, so the Fleet page is listed too. */
export function NavLinks({ fleet = false }: { readonly fleet?: boolean }) {
  const pathname = stripClusterBase(usePathname() ?? '/');
  const base = useClusterBase();
  const items = fleet ? [...ITEMS, FLEET] : ITEMS;
  return (
    <nav aria-label="Main">
      <ul className="flex items-center gap-1">
        {items.map((item) => {
          const active = item.match(pathname);
          const props = {
            'aria-current': active ? ('page' as const) : undefined,
            className: `block rounded-md px-3 py-1.5 text-sm ${
              active
                ? 'bg-slate-900 font-semibold text-white dark:bg-slate-100 dark:text-slate-900'
                : 'text-slate-700 hover:bg-slate-100 hover:text-slate-950 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white'
            }`,
          };
          return (
            <li key={item.href}>
              {'global' in item && base !== '' ? (
                // From another cluster's page a full load: the header and link base are the default cluster's there.
                <a href={item.href} {...props}>
                  {item.label}
                </a>
              ) : (
                <Link href={'global' in item ? item.href : withClusterBase(base, item.href)} {...props}>
                  {item.label}
                </Link>
              )}
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
