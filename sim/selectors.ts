/**
 * Label and field selectors with the syntax and semantics of `k8s.io/apimachinery` `labels.Parse`
 * and `fields.ParseSelector`, plus conversion of `metav1.LabelSelector` objects.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/labels/selector.go
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/fields/selector.go
 */
import type { FieldGetter } from './resources';
import type { KubeObject } from './types';
import { arrayField, isRecord, isStringMap, stringField } from './types';

/** Operators of a label requirement. */
export type LabelOperator = '=' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

/** One requirement of a label selector. */
export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

/** A parsed label selector: every requirement must hold. An empty list matches everything. */
export type LabelSelector = readonly LabelRequirement[];

/** Thrown for unparsable selectors; the router turns it into 400 BadRequest. */
export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

type Token =
  | { kind: 'word'; text: string }
  | { kind: 'op'; text: '=' | '==' | '!=' | '!' | '(' | ')' | ',' | '>' | '<' };

const WORD_CHAR = /[A-Za-z0-9._\-/]/;

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input.charAt(i);
    if (c === ' ' || c === '\t' || c === '\n') {
      i++;
    } else if (c === '!' && input.charAt(i + 1) === '=') {
      tokens.push({ kind: 'op', text: '!=' });
      i += 2;
    } else if (c === '=' && input.charAt(i + 1) === '=') {
      tokens.push({ kind: 'op', text: '==' });
      i += 2;
    } else if (c === '=' || c === '!' || c === '(' || c === ')' || c === ',' || c === '>' || c === '<') {
      tokens.push({ kind: 'op', text: c });
      i++;
    } else if (WORD_CHAR.test(c)) {
      let j = i;
      while (j < input.length && WORD_CHAR.test(input.charAt(j))) j++;
      tokens.push({ kind: 'word', text: input.slice(i, j) });
      i = j;
    } else {
      throw new SelectorError(`unable to parse requirement: invalid character '${c}' in "${input}"`);
    }
  }
  return tokens;
}

const KEY_RE = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE_RE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

function checkKey(key: string): string {
  if (!KEY_RE.test(key) || key.length > 317) {
    throw new SelectorError(`unable to parse requirement: invalid label key "${key}"`);
  }
  return key;
}

function checkValue(value: string): string {
  if (!VALUE_RE.test(value) || value.length > 63) {
    throw new SelectorError(`unable to parse requirement: invalid label value: "${value}"`);
  }
  return value;
}

/**
 * Parses a label selector string (`app=web,tier in (a,b),!legacy`).
 * @throws SelectorError when the string is not a valid selector.
 */
export function parseLabelSelector(input: string): LabelSelector {
  const tokens = tokenize(input);
  const requirements: LabelRequirement[] = [];
  let pos = 0;
  const peek = (): Token | undefined => tokens[pos];
  const next = (): Token | undefined => tokens[pos++];
  const fail = (what: string): never => {
    throw new SelectorError(`unable to parse requirement: ${what} in "${input}"`);
  };
  const word = (what: string): string => {
    const t = next();
    if (t?.kind !== 'word') return fail(`expected ${what}`);
    return t.text;
  };
  const valueList = (): string[] => {
    const open = next();
    if (open?.kind !== 'op' || open.text !== '(') return fail("expected '('");
    const values: string[] = [];
    let afterComma = false;
    for (;;) {
      const t = next();
      if (t?.kind === 'word') {
        values.push(checkValue(t.text));
        const sep = next();
        if (sep?.kind === 'op' && sep.text === ')') return values;
        if (sep?.kind !== 'op' || sep.text !== ',') return fail("expected ',' or ')'");
        afterComma = true;
      } else if (t?.kind === 'op' && t.text === ',') {
        values.push('');
        afterComma = true;
      } else if (t?.kind === 'op' && t.text === ')') {
        if (afterComma) values.push('');
        return values;
      } else {
        return fail("expected a value or ')'");
      }
    }
  };
  if (tokens.length === 0) return requirements;
  for (;;) {
    const first = peek();
    if (first?.kind === 'op' && first.text === '!') {
      pos++;
      requirements.push({ key: checkKey(word('a label key')), operator: '!', values: [] });
    } else {
      const key = checkKey(word('a label key'));
      const op = peek();
      if (op === undefined || (op.kind === 'op' && op.text === ',')) {
        requirements.push({ key, operator: 'exists', values: [] });
      } else if (op.kind === 'op' && (op.text === '=' || op.text === '==' || op.text === '!=')) {
        pos++;
        const valueToken = peek();
        let value = '';
        if (valueToken?.kind === 'word') {
          value = checkValue(valueToken.text);
          pos++;
        }
        requirements.push({ key, operator: op.text === '!=' ? '!=' : '=', values: [value] });
      } else if (op.kind === 'op' && (op.text === '>' || op.text === '<')) {
        pos++;
        const value = word('an integer value');
        if (!/^-?\d+$/.test(value)) fail(`for 'gt', 'lt' operators, the value must be an integer, got "${value}"`);
        requirements.push({ key, operator: op.text === '>' ? 'gt' : 'lt', values: [value] });
      } else if (op.kind === 'word' && (op.text === 'in' || op.text === 'notin')) {
        pos++;
        const values = valueList();
        if (values.length === 0) fail(`for 'in', 'notin' operators, values set can't be empty`);
        requirements.push({ key, operator: op.text, values });
      } else {
        fail(`found '${op.text}', expected: in, notin, =, ==, !=, gt, lt`);
      }
    }
    const sep = next();
    if (sep === undefined) break;
    if (sep.kind !== 'op' || sep.text !== ',') fail(`found '${sep.text}', expected: ','`);
    if (peek() === undefined) fail('found end of input after \',\'');
  }
  return requirements;
}

/** Whether a label map satisfies a parsed selector. */
export function matchesLabels(selector: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  for (const req of selector) {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, req.key);
    const value = has && labels ? labels[req.key] : undefined;
    switch (req.operator) {
      case '=':
        if (value !== req.values[0]) return false;
        break;
      case '!=':
        if (has && value === req.values[0]) return false;
        break;
      case 'in':
        if (value === undefined || !req.values.includes(value)) return false;
        break;
      case 'notin':
        if (value !== undefined && req.values.includes(value)) return false;
        break;
      case 'exists':
        if (!has) return false;
        break;
      case '!':
        if (has) return false;
        break;
      case 'gt':
      case 'lt': {
        if (value === undefined || !/^-?\d+$/.test(value)) return false;
        const actual = Number(value);
        const bound = Number(req.values[0]);
        if (req.operator === 'gt' ? !(actual > bound) : !(actual < bound)) return false;
        break;
      }
    }
  }
  return true;
}

/** Formats a parsed selector back to its canonical string form (requirements sorted by key). */
export function formatLabelSelector(selector: LabelSelector): string {
  return [...selector]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => {
      switch (r.operator) {
        case '=': return `${r.key}=${r.values[0] ?? ''}`;
        case '!=': return `${r.key}!=${r.values[0] ?? ''}`;
        case 'in': return `${r.key} in (${[...r.values].sort().join(',')})`;
        case 'notin': return `${r.key} notin (${[...r.values].sort().join(',')})`;
        case 'exists': return r.key;
        case '!': return `!${r.key}`;
        case 'gt': return `${r.key}>${r.values[0] ?? ''}`;
        case 'lt': return `${r.key}<${r.values[0] ?? ''}`;
      }
      return r.key;
    })
    .join(',');
}

/**
 * Converts a `metav1.LabelSelector` object (`matchLabels` / `matchExpressions`) to requirements.
 * An absent or empty selector object yields an empty list (matches everything), as upstream.
 * @throws SelectorError for an unknown operator.
 */
export function labelSelectorFromObject(selector: unknown): LabelSelector {
  if (!isRecord(selector)) return [];
  const requirements: LabelRequirement[] = [];
  const matchLabels = selector.matchLabels;
  if (isStringMap(matchLabels)) {
    for (const [key, value] of Object.entries(matchLabels)) requirements.push({ key, operator: '=', values: [value] });
  }
  for (const expr of arrayField(selector, 'matchExpressions')) {
    const key = stringField(expr, 'key') ?? '';
    const op = stringField(expr, 'operator');
    const values = arrayField(expr, 'values').filter((v): v is string => typeof v === 'string');
    if (op === 'In') requirements.push({ key, operator: 'in', values });
    else if (op === 'NotIn') requirements.push({ key, operator: 'notin', values });
    else if (op === 'Exists') requirements.push({ key, operator: 'exists', values: [] });
    else if (op === 'DoesNotExist') requirements.push({ key, operator: '!', values: [] });
    else throw new SelectorError(`"${op ?? ''}" is not a valid label selector operator`);
  }
  return requirements;
}

/** One term of a field selector. */
export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

/** A parsed field selector (every term must hold). */
export type FieldSelector = readonly FieldRequirement[];

function splitUnescaped(input: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < input.length; i++) {
    const c = input.charAt(i);
    if (c === '\\' && i + 1 < input.length) {
      current += c + input.charAt(i + 1);
      i++;
    } else if (c === separator) {
      parts.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}

function unescapeFieldValue(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value.charAt(i);
    if (c === '\\') {
      const n = value.charAt(i + 1);
      if (n !== '\\' && n !== ',' && n !== '=' && n !== '!') {
        throw new SelectorError(`invalid field selector: invalid escape sequence: \\${n}`);
      }
      out += n;
      i++;
    } else {
      out += c;
    }
  }
  return out;
}

/**
 * Parses a field selector (`metadata.name=x,spec.nodeName!=`).
 * @throws SelectorError when a term has no operator.
 */
export function parseFieldSelector(input: string): FieldSelector {
  if (input.trim() === '') return [];
  return splitUnescaped(input, ',').map((term) => {
    for (const op of ['!=', '==', '='] as const) {
      // find the first unescaped operator occurrence
      for (let i = 0; i < term.length; i++) {
        if (term.charAt(i) === '\\') {
          i++;
          continue;
        }
        if (term.startsWith(op, i) && !(op === '=' && term.charAt(i - 1) === '!')) {
          const field = term.slice(0, i).trim();
          const value = unescapeFieldValue(term.slice(i + op.length));
          return { field, operator: op === '!=' ? '!=' : '=', value };
        }
      }
    }
    throw new SelectorError(`invalid selector: '${input}'; can't understand '${term}'`);
  });
}

/** Resolves the getter of every field label of a selector, rejecting unsupported labels. */
export function compileFieldSelector(
  selector: FieldSelector,
  fields: Readonly<Record<string, FieldGetter>>,
  aliases: Readonly<Record<string, string>> = {},
): (object: KubeObject) => boolean {
  const checks = selector.map((req) => {
    const label = aliases[req.field] ?? req.field;
    let getter: FieldGetter | undefined;
    if (label === 'metadata.name') getter = (o) => o.metadata.name;
    else if (label === 'metadata.namespace') getter = (o) => o.metadata.namespace ?? '';
    else getter = fields[label];
    if (getter === undefined) throw new SelectorError(`field label not supported: ${req.field}`);
    const get = getter;
    return req.operator === '=' ? (o: KubeObject) => get(o) === req.value : (o: KubeObject) => get(o) !== req.value;
  });
  return (object) => checks.every((check) => check(object));
}
