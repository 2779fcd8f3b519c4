/**
 * Runs in `<head>` before the first paint: applies the stored theme (or the OS preference) as the
 * `.dark` class on `<html>`, so there is no light flash in dark mode. Kept tiny and dependency-free.
 */
export const THEME_STORAGE_KEY = 'zonescope-theme';

export const THEME_SCRIPT = `(function(){try{var t=localStorage.getItem('${THEME_STORAGE_KEY}');var d=t==='dark'||(t!=='light'&&window.matchMedia('(prefers-color-scheme: dark)').matches);var e=document.documentElement;e.classList.toggle('dark',d);e.style.colorScheme=d?'dark':'light'}catch(_){}})()`;
