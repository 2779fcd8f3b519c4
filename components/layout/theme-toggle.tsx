'use client';

/** Light/dark switch: toggles `.dark` on `<html>` and remembers the choice in localStorage. */
import { useEffect, useSyncExternalStore } from 'react';
import { MoonIcon, SunIcon } from '../ui/icons';
import { THEME_STORAGE_KEY } from './theme-script';

function subscribe(onChange: () => void): () => void {
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['class'] });
  return () => observer.disconnect();
}

function isDark(): boolean {
  return document.documentElement.classList.contains('dark');
}

/**
 * What THEME_SCRIPT does, for a page whose head script never ran: a 404 decided before streaming
 * (the Service page's layout) sends Next.js's bare error shell and the page is rendered in the
 * browser, where an inline script does not execute. The script always sets `colorScheme`.
 */
function applyStoredThemeIfScriptDidNotRun(): void {
  const root = document.documentElement;
  if (root.style.colorScheme !== '') return;
  try {
    const stored = localStorage.getItem(THEME_STORAGE_KEY);
    const dark = stored === 'dark' || (stored !== 'light' && window.matchMedia('(prefers-color-scheme: dark)').matches);
    root.classList.toggle('dark', dark);
    root.style.colorScheme = dark ? 'dark' : 'light';
  } catch {
    // as the script: storage unavailable, keep the light default
  }
}

export function ThemeToggle() {
  const dark = useSyncExternalStore(subscribe, isDark, () => null);
  useEffect(applyStoredThemeIfScriptDidNotRun, []);
  const toggle = () => {
    const next = !isDark();
    document.documentElement.classList.toggle('dark', next);
    document.documentElement.style.colorScheme = next ? 'dark' : 'light';
    try {
      localStorage.setItem(THEME_STORAGE_KEY, next ? 'dark' : 'light');
    } catch {
      // storage unavailable (private mode): the choice lasts for this page only
    }
  };
  const label = dark === null ? 'Toggle colour theme' : dark ? 'Switch to light theme' : 'Switch to dark theme';
  return (
    <button
      type="button"
      onClick={toggle}
      aria-label={label}
      title={label}
      className="inline-flex h-8 items-center gap-1.5 rounded-md border border-slate-300 px-2 text-xs font-medium text-slate-800 hover:bg-slate-100 dark:border-slate-600 dark:text-slate-100 dark:hover:bg-slate-800"
    >
      {dark ? <SunIcon className="h-4 w-4" /> : <MoonIcon className="h-4 w-4" />}
      <span aria-hidden="true">{dark === null ? 'Theme' : dark ? 'Light' : 'Dark'}</span>
    </button>
  );
}
