'use client';

/** Primary navigation with the active section marked (`aria-current="page"`, underline and weight). */
import Link from 'next/link';
import { usePathname } from 'next/navigation';

const ITEMS = [
  { href: '/', label: 'Overview', match: (path: string) => path === '/' },
  { href: '/services', label: 'Services', match: (path: string) => path === '/services' || path.startsWith('/services/') },
  { href: '/dataplane', label: 'Dataplane', match: (path: string) => path.startsWith('/dataplane') },
] as const;

export function NavLinks() {
  const pathname = usePathname() ?? '/';
  return (
    <nav aria-label="Main">
      <ul className="flex items-center gap-1">
        {ITEMS.map((item) => {
          const active = item.match(pathname);
          return (
            <li key={item.href}>
              <Link
                href={item.href}
                aria-current={active ? 'page' : undefined}
                className={`block rounded-md px-3 py-1.5 text-sm ${
                  active
                    ? 'bg-slate-900 font-semibold text-white dark:bg-slate-100 dark:text-slate-900'
                    : 'text-slate-700 hover:bg-slate-100 hover:text-slate-950 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white'
                }`}
              >
                {item.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
