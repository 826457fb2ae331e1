/**
 * A bound on how deeply a JSON text nests, checked before anything recursive touches it. V8's JSON.parse
 * copes with any depth, but what comes after it does not: a structured clone to a worker, JSON.stringify
 * and schema checks recurse once per level, and a 10 KB body of 5,000 brackets overflows the stack. This is
 * one loop over the text (strings and their escapes skipped), so it is safe for any input and costs a
 * fraction of the parse. Both parts use it at every place a body, a frame or a JSON query value enters.
 */

/** The default of MAX_JSON_DEPTH: far above any JSON-RPC call or order (eth_simulateV1 nests ~7 levels). */
export const DEFAULT_MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether the arrays and objects of `text` nest at most `limit` deep (`[]` is 1, `[[]]` is 2). Malformed
 * text is not judged here: the parser that follows refuses it.
 */
export function jsonDepthWithin(text: Buffer | string, limit: number): boolean {
  // Depth cannot exceed the number of characters: short texts need no scan.
  if (text.length <= limit) return true;
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > limit) return false;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return true;
}

/** The words every refusal of a too-deep body uses, naming the limit and its setting. */
export function tooDeepMessage(what: string, limit: number): string {
  return `${what} nests deeper than ${limit} levels (MAX_JSON_DEPTH)`;
}
