/**
 * Every relative link in README.md, docs/*.md and the lib folders' READMEs leads somewhere: the
 * file or folder exists inside the repository, and an anchor (`page.md#section`, `#section`) is a
 * heading of the target page as GitHub slugs it. External links (`https:`, `mailto:`) are not
 * fetched. Links inside code (fenced blocks, inline code spans) are not links and are skipped.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Lines of a Markdown text outside fenced code blocks, with their 1-based line numbers. */
export function proseLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | null = null;
  text.split('\n').forEach((raw, index) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(raw);
    if (marker) {
      const run = marker[1] ?? '';
      if (fence === null) fence = run;
      else if (run[0] === fence[0] && run.length >= fence.length) fence = null;
      return;
    }
    if (fence === null) out.push({ line: index + 1, text: raw });
  });
  return out;
}

/** A heading's text as GitHub slugs it: lower case, punctuation and symbols dropped, spaces → `-`. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '')
    .trim();
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** The anchors of a Markdown page: heading slugs (repeats get `-1`, `-2`, … as on GitHub) and HTML ids. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: line } of proseLines(text)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const slug = githubSlug(heading[1] ?? '');
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const match of line.matchAll(/<a\s[^>]*(?:name|id)="([^"]+)"/g)) anchors.add(match[1] ?? '');
  }
  return anchors;
}

/** The link targets of a Markdown text (inline links and images), outside code. */
export function linksOf(text: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = [];
  for (const { line, text: raw } of proseLines(text)) {
    const prose = raw.replace(/(`+)(?:(?!\1).)+?\1/g, '');
    for (const match of prose.matchAll(/!?\[(?:[^\][]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ line, target: match[1] ?? '' });
    }
  }
  return links;
}

/** What is wrong with each relative link of `file` (repo-relative), as `file:line: message`. */
export function brokenLinks(file: string, read: (repoPath: string) => string | null = readRepoFile): string[] {
  const text = read(file);
  if (text === null) return [`${file}: cannot be read`];
  const problems: string[] = [];
  for (const { line, target } of linksOf(text)) {
    if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const hash = target.indexOf('#');
    const pathPart = decodeURIComponent(hash >= 0 ? target.slice(0, hash) : target);
    const anchor = hash >= 0 ? decodeURIComponent(target.slice(hash + 1)) : null;
    const resolved = pathPart === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), pathPart));
    const where = `${file}:${line}: "${target}"`;
    if (resolved.startsWith('..') || path.posix.isAbsolute(resolved)) {
      problems.push(`${where} points outside the repository`);
      continue;
    }
    if (!existsInRepo(resolved, read)) {
      problems.push(`${where}: ${resolved} does not exist`);
      continue;
    }
    if (anchor === null || anchor === '') continue;
    if (!resolved.endsWith('.md')) {
      problems.push(`${where}: an anchor into ${resolved}, which is not a Markdown page`);
      continue;
    }
    const anchors = anchorsOf(read(resolved) ?? '');
    if (!anchors.has(anchor)) problems.push(`${where}: ${resolved} has no heading with the anchor #${anchor}`);
  }
  return problems;
}

function readRepoFile(repoPath: string): string | null {
  const full = path.join(ROOT, repoPath);
  try {
    return statSync(full).isFile() ? readFileSync(full, 'utf8') : null;
  } catch {
    return null;
  }
}

function existsInRepo(repoPath: string, read: (repoPath: string) => string | null): boolean {
  if (read !== readRepoFile) return read(repoPath) !== null;
  return existsSync(path.join(ROOT, repoPath));
}

/** README.md, docs/*.md and lib/<folder>/README.md, repo-relative. */
function pagesChecked(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  const libReadmes = readdirSync(path.join(ROOT, 'lib'))
    .map((folder) => `lib/${folder}/README.md`)
    .filter((file) => existsSync(path.join(ROOT, file)));
  return ['README.md', ...docs.sort(), ...libReadmes.sort()];
}

describe('relative links in the documentation', () => {
  it('checks the README, every docs page and the lib READMEs', () => {
    const pages = pagesChecked();
    expect(pages).toContain('README.md');
    expect(pages).toContain('docs/design.md');
    expect(pages.length).toBeGreaterThan(5);
  });

  it.each(pagesChecked())('%s: every relative link and anchor resolves', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });
});

describe('the link checker', () => {
  const pages: Record<string, string> = {
    'README.md': [
      '# Title',
      'See [the guide](docs/guide.md#running-it--fast) and [a part](#title).',
      '![shot](docs/missing.png) and [gone](docs/gone.md).',
      '[bad anchor](docs/guide.md#nowhere), [outside](../elsewhere.md), [web](https://example.com/x#y).',
      '`[not a link](nowhere.md)`',
      '```',
      '[in a fence](nowhere.md)',
      '```',
    ].join('\n'),
    'docs/guide.md': ['# Guide', '## Running it — fast', '## `npm run analyze` (CLI)', '## Running it — fast', '```sh', '# not a heading', '```'].join('\n'),
  };
  const read = (repoPath: string): string | null => pages[repoPath] ?? null;

  it('finds missing files, missing anchors and links leaving the repository, and nothing else', () => {
    expect(brokenLinks('README.md', read)).toEqual([
      'README.md:3: "docs/missing.png": docs/missing.png does not exist',
      'README.md:3: "docs/gone.md": docs/gone.md does not exist',
      'README.md:4: "docs/guide.md#nowhere": docs/guide.md has no heading with the anchor #nowhere',
      'README.md:4: "../elsewhere.md" points outside the repository',
    ]);
  });

  it('slugs headings as GitHub does, numbering repeats and skipping code blocks', () => {
    expect([...anchorsOf(pages['docs/guide.md'] ?? '')]).toEqual(['guide', 'running-it--fast', 'npm-run-analyze-cli', 'running-it--fast-1']);
    expect(githubSlug("Performance at Kubernetes' published limits")).toBe('performance-at-kubernetes-published-limits');
    expect(githubSlug('How zonescope uses @kubernetes/client-node')).toBe('how-zonescope-uses-kubernetesclient-node');
    expect(githubSlug('`ZONESCOPE_PROMETHEUS_URL` and [docs](x.md)')).toBe('zonescope_prometheus_url-and-docs');
    expect(githubSlug('Overview `/`')).toBe('overview-');
  });
});
