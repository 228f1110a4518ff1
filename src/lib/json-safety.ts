// Request JSON that the database cannot store or the validators cannot walk
// is refused up front with a 400: NUL characters and unpaired surrogates
// (Postgres text and jsonb refuse them), and nesting deeper than a limit
// (recursive validation and serialisation would overflow the stack).

export const MAX_JSON_DEPTH = 100;

const NUL = /\\u0000|\u0000/;
const LONE_HIGH = /\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})/;
const LONE_LOW = /(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}/;

/** why a JSON text is refused, or undefined */
export function jsonTextProblem(text: string, maxDepth = MAX_JSON_DEPTH): string | undefined {
  if (NUL.test(text)) return "strings must not contain NUL characters";
  if (text.includes("\\u") && (LONE_HIGH.test(text) || LONE_LOW.test(text))) return "strings must not contain unpaired surrogates";
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
