// PromQL parse errors in Prometheus's words: "<line>:<col>: parse error: <reason>"
// (posrange.StartPosInput: 1-based line, byte column; "unknown position" for an
// empty query). The HTTP layer wraps the message as `invalid parameter "query": ...`.

export class PromQLParseError extends Error {
  /** the reason without the position prefix, e.g. "unexpected end of input" */
  readonly reason: string;
  /** 0-based character offset of the error in the query, when known */
  readonly offset: number | undefined;

  constructor(query: string, offset: number | undefined, reason: string) {
    super(`${positionOf(query, offset)}: parse error: ${reason}`);
    this.name = "PromQLParseError";
    this.reason = reason;
    this.offset = offset;
  }
}

/** "line:col" as Prometheus prints it; columns count UTF-8 bytes as Go does */
export function positionOf(query: string, offset: number | undefined): string {
  if (query === "") return "unknown position";
  if (offset === undefined || offset < 0 || offset > query.length) return "invalid position";
  const before = query.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  const line = before.split("\n").length;
  return `${line}:${utf8Length(before.slice(lineStart)) + 1}`;
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Go's %q of a rune: 'x', with Go's escapes for the unprintable ones */
export function quoteRune(ch: string | undefined): string {
  if (ch === undefined) return "'\\ufffd'";
  const simple: Record<string, string> = { "\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\", "'": "\\'", "\x07": "\\a", "\b": "\\b", "\f": "\\f", "\v": "\\v" };
  if (simple[ch]) return `'${simple[ch]}'`;
  const code = ch.codePointAt(0)!;
  if (code < 0x20 || code === 0x7f) return `'\\x${code.toString(16).padStart(2, "0")}'`;
  return `'${ch}'`;
}

/** Go's %q of a string (close enough: JSON escaping) */
export function quoteString(s: string): string {
  return JSON.stringify(s);
}
