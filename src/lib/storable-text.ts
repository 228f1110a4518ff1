// Text PostgreSQL cannot hold: U+0000 (neither text nor jsonb stores it) and
// unpaired UTF-16 surrogates (not valid UTF-8; jsonb refuses their \u
// escapes). User-given strings bound for a text or jsonb column pass through
// here first, so bad text is a 400 naming its field, never a 500 from the
// database (see docs/security.md, "Text the stores cannot hold").

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, "g");

type WellFormed = { isWellFormed?: () => boolean };

/** whether a string is valid Unicode (no unpaired surrogate); native where the runtime has it */
export function isWellFormed(s: string): boolean {
  const native = (s as unknown as WellFormed).isWellFormed;
  return native ? native.call(s) : !LONE_SURROGATE.test(s);
}

/** unpaired surrogates replaced by U+FFFD, as Go's decoders (and TextDecoder) do with invalid text */
export function toWellFormed(s: string): string {
  return isWellFormed(s) ? s : s.replace(LONE_SURROGATES, "\uFFFD");
}

/** why a string cannot be stored in a PostgreSQL text or jsonb column, or undefined */
export function storableTextProblem(s: string): string | undefined {
  if (s.includes("\u0000")) return "contains U+0000, which cannot be stored";
  if (!isWellFormed(s)) return "contains an unpaired surrogate, which is not valid UTF-8";
  return undefined;
}

export const isStorableText = (s: string): boolean => storableTextProblem(s) === undefined;
