// Request JSON that the database cannot store or the validators cannot walk
// is refused up front with a 400: NUL characters and unpaired surrogates
// (Postgres text and jsonb refuse them: "invalid byte sequence", "unsupported
// Unicode escape sequence"), and nesting deeper than a limit (recursive
// validation and serialisation would overflow the stack). The message names
// the field, as the real product's "bad request data" answers do.

export const MAX_JSON_DEPTH = 100;

/** only these escapes can put NUL or a surrogate into a parsed string (raw ones are invalid JSON, or were replaced when decoding UTF-8) */
const RISKY_ESCAPE = /\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})/;
const NUL = /\u0000/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const MAX_PATH = 200;

/** why a string cannot be stored, or undefined */
export function textProblem(s: string): string | undefined {
  if (NUL.test(s)) return "must not contain NUL characters";
  if (LONE_SURROGATE.test(s)) return "must not contain unpaired surrogates";
  return undefined;
}

/** why a JSON text is refused, or undefined; pass the value already parsed from it to spare a second parse */
export function jsonTextProblem(text: string, value?: unknown, maxDepth = MAX_JSON_DEPTH): string | undefined {
  const depth = nestingProblem(text, maxDepth);
  if (depth) return depth;
  if (!RISKY_ESCAPE.test(text)) return undefined;
  return valueProblem(value === undefined ? parsedOrUndefined(text) : value);
}

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined; // not JSON: the caller's parse says so
  }
}

function nestingProblem(text: string, maxDepth: number): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92) i++; // backslash: skip the escaped character
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 91 || ch === 123) {
      if (++depth > maxDepth) return `JSON nested deeper than ${maxDepth} levels`;
    } else if (ch === 93 || ch === 125) depth--;
  }
  return undefined;
}

const IDENT = /^[A-Za-z_$][\w$]*$/;

function fieldPath(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  if (IDENT.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key.replace(/[\u0000\ud800-\udfff]/g, "\ufffd"))}]`;
}

/** the first string (or key) that cannot be stored, named by its path: "spec.panels[0].title must not contain NUL characters" */
function valueProblem(root: unknown): string | undefined {
  // iterative: the nesting is already bounded, but no recursion is needed
  const stack: Array<[unknown, string]> = [[root, ""]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    const name = (path || "the body").slice(0, MAX_PATH);
    if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) return `${name} ${problem}`;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], fieldPath(path, i)]);
    } else if (typeof v === "object" && v !== null) {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        const problem = textProblem(key);
        if (problem) return `a key of ${name} ${problem}`;
        stack.push([child, fieldPath(path, key)]);
      }
    }
  }
  return undefined;
}
