// Lint rules, including the import boundaries of docs/design.md §2:
// lib/topology is pure (nothing of ours outside itself, no framework, no I/O) and layered
// (upstream ← model ← analyses ← report, see lint/import-layers.mjs), only lib/k8s talks to
// @kubernetes/client-node, components never see client-node objects, and only the `*-chart.tsx`
// files of the view folders import recharts.
import js from '@eslint/js';
import nextPlugin from '@next/eslint-plugin-next';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import zonescope from './lint/import-layers.mjs';
import projectLayers from './lint/project-layers.mjs';

const nodeBuiltins = [
  'assert', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs', 'fs/promises',
  'http', 'http2', 'https', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream', 'timers',
  'tls', 'url', 'util', 'worker_threads', 'zlib',
];

const COMPONENT_BANS = [
  { group: ['@kubernetes/*'], message: 'Components never see client-node objects.' },
];
const RECHARTS_BAN = { group: ['recharts', 'recharts/*'], message: 'Only `*-chart.tsx` files (client components in the view folders) import recharts.' };

export default tseslint.config(
  {
    ignores: ['node_modules/**', '.next/**', '.next-*/**', '.bench-tmp/**', 'next-env.d.ts', 'test-results/**', 'playwright-report/**', '.sim/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: {
      globals: {
        console: 'readonly', process: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly',
        setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', fetch: 'readonly', Response: 'readonly',
        Request: 'readonly', Headers: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly',
        TextEncoder: 'readonly', TextDecoder: 'readonly', structuredClone: 'readonly', performance: 'readonly',
        window: 'readonly', document: 'readonly', navigator: 'readonly', localStorage: 'readonly',
        queueMicrotask: 'readonly', setImmediate: 'readonly', URLSearchParams: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': ['error', { paths: [], patterns: [] }],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly', __dirname: 'readonly' } },
  },
  {
    files: ['app/**/*.{ts,tsx}', 'components/**/*.{ts,tsx}'],
    plugins: { '@next/next': nextPlugin, 'react-hooks': reactHooks },
    rules: {
      ...nextPlugin.configs.recommended.rules,
      ...nextPlugin.configs['core-web-vitals'].rules,
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: ['lib/topology/**/*.ts'],
    plugins: { zonescope },
    rules: {
      'zonescope/import-layers': 'error',
      'no-restricted-imports': ['error', {
        paths: nodeBuiltins.map((name) => ({ name, message: 'lib/topology is pure: no I/O.' })),
        patterns: [
          { group: ['node:*'], message: 'lib/topology is pure: no Node built-ins.' },
          { group: ['react', 'react-dom', 'react/*', 'next', 'next/*', '@kubernetes/*', 'recharts', 'server-only'], message: 'lib/topology imports no framework.' },
        ],
      }],
      'no-restricted-globals': ['error',
        { name: 'Date', message: 'lib/topology has no clock.' },
        { name: 'fetch', message: 'lib/topology is pure: no I/O.' },
        { name: 'process', message: 'lib/topology is pure: no environment.' },
        { name: 'setTimeout', message: 'lib/topology has no clock.' },
      ],
      'no-restricted-properties': ['error',
        { object: 'Math', property: 'random', message: 'lib/topology uses no unseeded randomness; take a seeded generator.' },
        { object: 'Date', property: 'now', message: 'lib/topology has no clock.' },
        { object: 'performance', property: 'now', message: 'lib/topology has no clock.' },
      ],
    },
  },
  {
    files: ['app/**/*.{ts,tsx}', 'components/**/*.{ts,tsx}', 'lib/shared/**/*.ts', 'lib/config/**/*.ts', 'lib/prometheus/**/*.ts', 'lib/server/**/*.ts', 'lib/views/**/*.ts', 'cli/**/*.ts', 'lib/topology/**/*.ts', 'sim/**/*.ts', 'scripts/**/*.ts'],
    // Tests may drive a server with client-node directly (real wires, no mocks).
    ignores: ['lib/topology/**/*.ts', '**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['@kubernetes/*'], message: 'Only lib/k8s talks to @kubernetes/client-node.' }],
      }],
    },
  },
  {
    files: ['components/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [...COMPONENT_BANS, RECHARTS_BAN],
      }],
    },
  },
  {
    files: ['components/**/*-chart.tsx'],
    rules: {
      'no-restricted-imports': ['error', { patterns: COMPONENT_BANS }],
    },
  },
  {
    files: ['app/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['@kubernetes/*'], message: 'Only lib/k8s talks to @kubernetes/client-node.' }, RECHARTS_BAN] }],
    },
  },
  {
    // One-way arrows for the whole project (docs/design.md §2, lint/project-layers.mjs).
    files: ['lib/**/*.{ts,tsx}', 'components/**/*.{ts,tsx}', 'cli/**/*.ts', 'sim/**/*.ts'],
    plugins: { project: projectLayers },
    rules: { 'project/project-layers': 'error' },
  },
  {
    files: ['**/*.{ts,tsx,mjs}'],
    plugins: { project: projectLayers },
    rules: { 'project/no-cycle': 'error' },
  },
  {
    files: ['components/**/*.tsx', 'app/**/*.tsx'],
    plugins: { project: projectLayers },
    rules: { 'project/client-boundary': 'error' },
  },
);
