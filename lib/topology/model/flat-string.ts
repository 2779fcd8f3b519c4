/**
 * Strings built piece by piece (`key += part` in a loop, template literals of template literals)
 * are ropes in V8: every `+` adds a 32-byte node that points at both halves, and the text is only
 * laid out in one piece when something reads a character. A rope kept for long — a memo's key, a
 * message in a cached report, a row's link — holds every node and every piece: a shape key of a
 * Service with 1,000 endpoints was ~2,000 nodes, and a dashboard at realistic L kept ~31 MiB of
 * heap in such nodes (heap snapshot of `npm start` after its warm-up). Reading one character lays
 * the text out once and lets the nodes go (a 45-character link: 284 → 78 bytes).
 */

/** `text` itself, laid out in one piece (see the module comment): call it on a built string before keeping it. */
export function flatString(text: string): string {
  // Reading a character of a rope flattens it in place (V8's String::Flatten); a flat string is untouched.
  text.charCodeAt(0);
  return text;
}

/** Texts {@link sharedText} keeps before it starts over. */
export const SHARED_TEXT_LIMIT = 4_096;

let sharedTexts = new Map<string, string>();

/**
 * One copy, laid out in one piece, of a text that many results of a pass repeat (a zone's
 * selection message, a controller event): each result that spells it out gets a rope of its own,
 * which this swaps for the copy kept before. Bounded: beyond {@link SHARED_TEXT_LIMIT} texts it
 * starts over. The text is the same either way; only which object carries it changes.
 */
export function sharedText(text: string): string {
  const known = sharedTexts.get(text);
  if (known !== undefined) return known;
  if (sharedTexts.size >= SHARED_TEXT_LIMIT) sharedTexts = new Map();
  const flat = flatString(text);
  sharedTexts.set(flat, flat);
  return flat;
}
