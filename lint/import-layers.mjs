// ESLint rule `zonescope/import-layers`: the engine's folders form layers, each importing only
// itself and the layers below it, and nothing of ours outside lib/topology:
//   lib/topology/upstream  the mirror of upstream Kubernetes (imports nothing of zonescope's)
//   lib/topology/model     the cluster model (records, index, per-cluster context)
//   lib/topology/analyses  zonescope's own analyses
//   lib/topology/report    report assembly and memoisation
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const ENGINE = 'lib/topology';
const LAYERS = ['upstream', 'model', 'analyses', 'report'];

/** The repo-relative path an import names, or null for a package import. */
function targetOf(file, spec) {
  if (spec.startsWith('@/')) return path.normalize(spec.slice(2));
  if (spec.startsWith('.')) return path.relative(ROOT, path.resolve(path.dirname(file), spec));
  return null;
}

function layerOf(relative) {
  const parts = relative.split(path.sep);
  if (parts.length < 3 || `${parts[0]}/${parts[1]}` !== ENGINE) return null;
  const index = LAYERS.indexOf(parts[2] ?? '');
  return index >= 0 ? index : null;
}

/** @type {import('eslint').Rule.RuleModule} */
const importLayers = {
  meta: {
    type: 'problem',
    docs: { description: 'lib/topology layers import only themselves and the layers below' },
    schema: [],
    messages: {
      outside: '{{layer}} may import nothing of ours outside lib/topology ({{spec}}).',
      upward: 'lib/topology/{{layer}} may not import lib/topology/{{target}} ({{spec}}): layers import only downwards ({{order}}).',
      unplaced: 'Engine files live in one of lib/topology/{{{layers}}}.',
    },
  },
  create(context) {
    const file = context.filename;
    const own = layerOf(path.relative(ROOT, file));
    if (own === null) {
      if (path.relative(ROOT, file).startsWith(`${ENGINE}${path.sep}`)) {
        return { Program: (node) => context.report({ node, messageId: 'unplaced', data: { layers: LAYERS.join(',') } }) };
      }
      return {};
    }
    const check = (node, spec) => {
      if (typeof spec !== 'string') return;
      const target = targetOf(file, spec);
      if (target === null) return;
      const layer = layerOf(target);
      if (layer === null) context.report({ node, messageId: 'outside', data: { layer: `lib/topology/${LAYERS[own]}`, spec } });
      else if (layer > own) context.report({ node, messageId: 'upward', data: { layer: LAYERS[own], target: LAYERS[layer], spec, order: LAYERS.join(' ← ') } });
    };
    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
    };
  },
};

export default { rules: { 'import-layers': importLayers } };
