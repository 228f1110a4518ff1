// Request JSON that the database cannot store or the validators cannot walk
// is refused up front with a 400: NUL characters and unpaired surrogates
// (Postgres text and jsonb refuse them: "invalid byte sequence", "unsupported
// Unicode escape sequence"), and nesting deeper than a limit (recursive
// validation and serialisation would overflow the stack). The message names
// the field, as the real product's "bad request data" answers do.

export const MAX_JSON_DEPTH = 100;

const NUL = /\u0000/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const MAX_PATH = 200;

/** why a string cannot be stored, or undefined */
export function textProblem(s: string): string | undefined {
  if (NUL.test(s)) return "must not contain NUL characters";
  if (LONE_SURROGATE.test(s)) return "must not contain unpaired surrogates";
  return undefined;
}

/**
 * why a JSON text is refused, or undefined. One pass over the text finds
 * nesting and any string holding NUL or an unpaired surrogate (from \u
 * escapes, or raw); only then is the value walked to name the field. Pass the
 * value already parsed from the text to spare a second parse.
 */
export function jsonTextProblem(text: string, value?: unknown, maxDepth = MAX_JSON_DEPTH): string | undefined {
  const found = scan(text, maxDepth);
  if (found !== BAD_TEXT) return found;
  return valueProblem(value === undefined ? parsedOrUndefined(text) : value) ?? "strings must not contain NUL characters or unpaired surrogates";
}

const BAD_TEXT = "bad text";
const isHigh = (u: number) => u >= 0xd800 && u <= 0xdbff;
const isLow = (u: number) => u >= 0xdc00 && u <= 0xdfff;

function hex4(text: string, at: number): number {
  const n = Number.parseInt(text.slice(at, at + 4), 16);
  return Number.isNaN(n) ? -1 : n;
}

/** the nesting problem, BAD_TEXT for a string that cannot be stored, or undefined */
function scan(text: string, maxDepth: number): string | undefined {
  let depth = 0;
  let inString = false;
  let bad = false;
  /** the previous code unit of the current string was a high surrogate */
  let high = false;
  for (let i = 0; i < text.length; i++) {
    let ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 34) {
        inString = false;
        if (high) bad = true;
        continue;
      }
      if (ch === 92) {
        i++;
        if (text.charCodeAt(i) !== 117) { // an escape other than \u: an ordinary character
          if (high) bad = true;
          high = false;
          continue;
        }
        ch = hex4(text, i + 1);
        i += 4;
      }
      if (ch === 0) bad = true;
      if (high) {
        if (!isLow(ch)) bad = true;
        high = false;
      } else if (isHigh(ch)) high = true;
      else if (isLow(ch)) bad = true;
    } else if (ch === 34) inString = true;
    else if (ch === 91 || ch === 123) {
      if (++depth > maxDepth) return `JSON nested deeper than ${maxDepth} levels`;
    } else if (ch === 93 || ch === 125) depth--;
  }
  return bad ? BAD_TEXT : undefined;
}

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined; // not JSON: the caller's parse says so
  }
}

const IDENT = /^[A-Za-z_$][\w$]*$/;

function fieldPath(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  if (IDENT.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key.replace(/[\u0000\ud800-\udfff]/g, "\ufffd"))}]`;
}

interface Step {
  parent: Step | undefined;
  key: string | number;
}

function pathOf(step: Step | undefined): string {
  const keys: Array<string | number> = [];
  for (let at = step; at; at = at.parent) keys.push(at.key);
  let path = "";
  for (let i = keys.length - 1; i >= 0; i--) path = fieldPath(path, keys[i]!);
  return (path || "the body").slice(0, MAX_PATH);
}

/** the first string (or key) that cannot be stored, named by its path: "spec.panels[0].title must not contain NUL characters" */
function valueProblem(root: unknown): string | undefined {
  // iterative, and the path is only spelled out for the value refused
  const stack: Array<[unknown, Step | undefined]> = [[root, undefined]];
  while (stack.length) {
    const [v, at] = stack.pop()!;
    if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) return `${pathOf(at)} ${problem}`;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) if (typeof v[i] === "object" || typeof v[i] === "string") stack.push([v[i], { parent: at, key: i }]);
    } else if (typeof v === "object" && v !== null) {
      const o = v as Record<string, unknown>;
      for (const key in o) {
        const problem = textProblem(key);
        if (problem) return `a key of ${pathOf(at)} ${problem}`;
        const child = o[key];
        if (typeof child === "object" || typeof child === "string") stack.push([child, { parent: at, key }]);
      }
    }
  }
  return undefined;
}
