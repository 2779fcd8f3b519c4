// ESLint rules `zonescope/project-layers` and `zonescope/client-boundary`: the one-way arrows of
// docs/design.md §2 for the whole project, not only the engine (lint/import-layers.mjs keeps the
// engine's own four layers).
//
//   lib/topology ← lib/shared ← lib/config ← lib/k8s ← lib/prometheus ← lib/server ← lib/views
//
// A lib layer imports only itself and the layers to its left; nothing in lib/ imports components/,
// app/, cli/, sim/, scripts/ or e2e/. components/ take data from lib/views, lib/server (server
// components), lib/shared and lib/topology, and at most types from lib/k8s, lib/prometheus and
// lib/config. cli/ is an entry point of lib (never of the UI). sim/ is a fake cluster: it may use
// the engine, the shared contracts and lib/k8s's projections of wire objects, nothing of the
// dashboard. Tests and test support (`*.test.ts(x)`, `_testing/`, `lib/testing/`) are exempt: they
// drive real parts across layers.
//
// `no-cycle`: no run-time import cycle anywhere in the project (a type-only import is erased and
// cannot make one). A cycle makes module initialisation order-dependent and hides a layer mistake.
//
// `client-boundary`: a `'use client'` module never imports (at run time) a module marked
// `import 'server-only'` (next build would fail on it too, but only after a whole build).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The lib layers, lowest first. */
export const LIB_LAYERS = ['topology', 'shared', 'config', 'k8s', 'prometheus', 'server', 'views'];

/** What may import what (top-level folders other than lib/). */
const AREAS = {
  components: { runtime: ['lib/topology', 'lib/shared', 'lib/server', 'lib/views', 'components'], types: ['lib'] },
  cli: { runtime: ['lib', 'cli'], types: ['lib', 'cli'] },
  sim: { runtime: ['lib/topology', 'lib/shared', 'lib/k8s', 'sim'], types: ['lib/topology', 'lib/shared', 'lib/k8s', 'sim'] },
};

/** The repo-relative path an import names (extension-less), or null for a package. */
function targetOf(file, spec) {
  if (spec.startsWith('@/')) return path.normalize(spec.slice(2));
  if (spec.startsWith('.')) return path.relative(ROOT, path.resolve(path.dirname(file), spec));
  return null;
}

function isExempt(relative) {
  return /\.test\.tsx?$/.test(relative) || relative.split(path.sep).includes('_testing') || relative.startsWith(`lib${path.sep}testing${path.sep}`);
}

function libLayer(relative) {
  const parts = relative.split(path.sep);
  if (parts[0] !== 'lib' || parts.length < 2) return null;
  const index = LIB_LAYERS.indexOf(parts[1]);
  return index >= 0 ? index : -1;
}

function within(relative, prefixes) {
  return prefixes.some((prefix) => relative === prefix || relative.startsWith(`${prefix}${path.sep}`) || relative.startsWith(`${prefix}/`));
}

function isTypeOnly(node) {
  if (node.importKind === 'type' || node.exportKind === 'type') return true;
  return Array.isArray(node.specifiers) && node.specifiers.length > 0 && node.specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type');
}

/** @type {import('eslint').Rule.RuleModule} */
const projectLayers = {
  meta: {
    type: 'problem',
    docs: { description: 'the project imports in one direction: lib layers downwards, lib never into the UI or tools' },
    schema: [],
    messages: {
      upward: '{{from}} may not import {{to}} ({{spec}}): lib imports only downwards ({{order}}).',
      unplaced: 'lib/{{folder}} is no layer: lib holds {{layers}} (and testing/ for test support).',
      outOfLib: 'lib/ may not import {{to}} ({{spec}}): nothing in lib imports the UI, the CLI or the tools.',
      area: '{{area}}/ may not import {{to}} ({{spec}}){{how}}.',
    },
  },
  create(context) {
    const file = context.filename;
    const relative = path.relative(ROOT, file);
    if (relative.startsWith('..') || isExempt(relative)) return {};
    const own = libLayer(relative);
    const area = relative.split(path.sep)[0];
    // The engine's own rule (lint/import-layers.mjs) already keeps it to itself.
    if (own === 0) return {};
    if (own === -1) return { Program: (node) => context.report({ node, messageId: 'unplaced', data: { folder: relative.split(path.sep)[1], layers: LIB_LAYERS.join(', ') } }) };
    const check = (node, statement, spec) => {
      if (typeof spec !== 'string') return;
      const target = targetOf(file, spec);
      // The package's own metadata (its version, for the user agent and build info) is no layer.
      if (target === null || target === 'package.json') return;
      const top = target.split(path.sep)[0];
      if (own !== null) {
        if (top !== 'lib') {
          context.report({ node, messageId: 'outOfLib', data: { to: `${top}/`, spec } });
          return;
        }
        const layer = libLayer(target);
        if (layer !== null && layer > own) {
          context.report({ node, messageId: 'upward', data: { from: `lib/${LIB_LAYERS[own]}`, to: `lib/${LIB_LAYERS[layer]}`, spec, order: LIB_LAYERS.join(' ← ') } });
        }
        return;
      }
      const rules = AREAS[area];
      if (!rules) return;
      const allowed = isTypeOnly(statement) ? [...rules.runtime, ...rules.types] : rules.runtime;
      if (within(target, allowed)) return;
      const typesOk = within(target, rules.types);
      context.report({ node, messageId: 'area', data: { area, to: target.split(path.sep).slice(0, 2).join('/'), spec, how: typesOk ? ' at run time (types only: `import type`)' : '' } });
    };
    return {
      ImportDeclaration: (node) => check(node.source, node, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node, node.source.value),
    };
  },
};

const SERVER_ONLY = new Map();

/** Whether the module at `target` (repo-relative, extension-less) is marked `import 'server-only'`. */
function isServerOnly(target) {
  if (SERVER_ONLY.has(target)) return SERVER_ONLY.get(target);
  let marked = false;
  for (const candidate of [`${target}.ts`, `${target}.tsx`, path.join(target, 'index.ts')]) {
    const full = path.join(ROOT, candidate);
    if (existsSync(full)) {
      marked = /^import ['"]server-only['"];?$/m.test(readFileSync(full, 'utf8'));
      break;
    }
  }
  SERVER_ONLY.set(target, marked);
  return marked;
}

/** @type {import('eslint').Rule.RuleModule} */
const clientBoundary = {
  meta: {
    type: 'problem',
    docs: { description: "a 'use client' module imports no server-only module at run time" },
    schema: [],
    messages: { serverOnly: "A 'use client' module may not import {{spec}} at run time: it is server-only (import its types with `import type`)." },
  },
  create(context) {
    const source = context.sourceCode.getText();
    if (!/^\s*['"]use client['"]/.test(source)) return {};
    const file = context.filename;
    const check = (node, statement, spec) => {
      if (typeof spec !== 'string' || isTypeOnly(statement)) return;
      const target = targetOf(file, spec);
      if (target !== null && isServerOnly(target)) context.report({ node, messageId: 'serverOnly', data: { spec } });
    };
    return {
      ImportDeclaration: (node) => check(node.source, node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node, node.source.value),
    };
  },
};


// ---------------------------------------------------------------------------------------------
// Run-time import cycles

const SOURCE_DIRS = ['lib', 'components', 'app', 'cli', 'sim', 'scripts', 'deploy'];
const STATEMENT = /^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm;

/** The run-time imports of a source text (type-only statements and all-type specifier lists skipped). */
export function runtimeImports(text) {
  const out = [];
  for (const match of text.matchAll(STATEMENT)) {
    if (match[5] !== undefined) {
      out.push(match[5]);
      continue;
    }
    if (match[2] !== undefined) continue;
    const clause = match[3].trim();
    const braces = /^\{([^}]*)\}$/s.exec(clause);
    if (braces) {
      const names = braces[1].split(',').map((n) => n.trim()).filter((n) => n !== '');
      if (names.length > 0 && names.every((n) => n.startsWith('type '))) continue;
    }
    out.push(match[4]);
  }
  return out;
}

function resolveModule(target) {
  for (const candidate of [`${target}.ts`, `${target}.tsx`, `${target}.mjs`, path.join(target, 'index.ts'), path.join(target, 'index.tsx')]) {
    if (existsSync(path.join(ROOT, candidate))) return candidate;
  }
  return null;
}

function sourceFiles(dir, out) {
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) sourceFiles(relative, out);
    } else if (/\.(ts|tsx|mjs)$/.test(entry.name) && !/\.d\.ts$/.test(entry.name)) {
      out.push(relative);
    }
  }
  return out;
}

/** The project's run-time import graph: module (repo-relative with extension) → the modules it imports. */
export function importGraph() {
  const graph = new Map();
  const files = SOURCE_DIRS.filter((dir) => existsSync(path.join(ROOT, dir))).flatMap((dir) => sourceFiles(dir, []));
  for (const file of files) {
    const edges = [];
    for (const spec of runtimeImports(readFileSync(path.join(ROOT, file), 'utf8'))) {
      const target = targetOf(path.join(ROOT, file), spec);
      if (target === null) continue;
      const resolved = resolveModule(target.replace(/\.(js|ts|tsx)$/, ''));
      if (resolved !== null) edges.push(resolved);
    }
    graph.set(file, edges);
  }
  return graph;
}

/** For each module on a cycle, one cycle through it (Tarjan's strongly connected components). */
export function cyclesOf(graph) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const component = new Map();
  const visit = (start) => {
    // Iterative, so a deep import chain cannot overflow the stack.
    const work = [[start, 0]];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [node, next] = frame;
      const edges = graph.get(node) ?? [];
      if (next < edges.length) {
        frame[1] += 1;
        const to = edges[next];
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push([to, 0]);
        } else if (onStack.has(to)) {
          low.set(node, Math.min(low.get(node), index.get(to)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === index.get(node)) {
        const members = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          members.push(member);
        } while (member !== node);
        if (members.length > 1 || (graph.get(node) ?? []).includes(node)) {
          const set = new Set(members);
          for (const m of members) component.set(m, set);
        }
      }
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  // One concrete cycle per module: breadth-first from the module back to itself inside its component.
  const cycles = new Map();
  for (const [node, members] of component) {
    const previous = new Map([[node, null]]);
    const queue = [node];
    let found = null;
    while (queue.length > 0 && found === null) {
      const at = queue.shift();
      for (const to of graph.get(at) ?? []) {
        if (!members.has(to)) continue;
        if (to === node) {
          found = at;
          break;
        }
        if (!previous.has(to)) {
          previous.set(to, at);
          queue.push(to);
        }
      }
    }
    const path_ = [];
    for (let at = found; at !== null; at = previous.get(at)) path_.unshift(at);
    cycles.set(node, [...path_, node]);
  }
  return cycles;
}

let CYCLES = null;

/** @type {import('eslint').Rule.RuleModule} */
const noCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'no run-time import cycle in the project' },
    schema: [],
    messages: { cycle: 'Run-time import cycle: {{cycle}}. Move what both need into a lower module, or import types only.' },
  },
  create(context) {
    const relative = path.relative(ROOT, context.filename);
    if (relative.startsWith('..')) return {};
    CYCLES ??= cyclesOf(importGraph());
    const cycle = CYCLES.get(relative);
    if (cycle === undefined) return {};
    return { Program: (node) => context.report({ node, messageId: 'cycle', data: { cycle: cycle.join(' → ') } }) };
  },
};

export default { rules: { 'project-layers': projectLayers, 'client-boundary': clientBoundary, 'no-cycle': noCycle } };
