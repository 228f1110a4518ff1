// A data source's secrets never reach the caller (spec: secrets are write-only),
// not even when the upstream reflects what it received (an echo endpoint, an
// error quoting the Authorization header). Everything sent back on behalf of
// a data source passes through here: each secret, in the forms it travels in
// (as is, JSON-escaped, base64 of a basic auth pair), is replaced by a marker.
// Streams are redacted across chunk boundaries by holding back the longest
// secret's length minus one byte.

export const REDACTED = "[redacted]";
const encoder = new TextEncoder();
const MARK = encoder.encode(REDACTED);

/** the byte patterns to hide: each secret as is and JSON-escaped, longest first, no duplicates */
export function secretPatterns(secrets: readonly string[]): Uint8Array[] {
  const texts = new Set<string>();
  for (const s of secrets) {
    // very short values would turn unrelated text into markers; they are not secrets worth the name
    if (s.length < 4) continue;
    texts.add(s);
    texts.add(JSON.stringify(s).slice(1, -1));
  }
  return [...texts].sort((a, b) => b.length - a.length).map((t) => encoder.encode(t));
}

export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const p of secretPatterns(secrets)) out = out.split(new TextDecoder().decode(p)).join(REDACTED);
  return out;
}

/** replaces every pattern starting in data[0, end); returns the bytes and how far it consumed */
function redactBytes(data: Uint8Array, patterns: Uint8Array[], end: number): { out: Uint8Array; consumed: number } {
  // Buffer.indexOf is a native substring search: a body of megabytes costs little
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (;;) {
    let at = -1;
    let hit: Uint8Array | undefined;
    // longest first: at one position the longest secret wins
    for (const p of patterns) {
      const found = buf.indexOf(p, from);
      if (found !== -1 && found < end && (at === -1 || found < at)) {
        at = found;
        hit = p;
      }
    }
    if (!hit) break;
    pieces.push(data.subarray(from, at), MARK);
    from = at + hit.length;
  }
  const consumed = Math.max(end, from);
  if (!pieces.length) return { out: data.subarray(0, consumed), consumed };
  pieces.push(data.subarray(from, consumed));
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return { out, consumed };
}

/** the body with every secret replaced; the stream itself when there is nothing to hide */
export function redactStream(body: ReadableStream<Uint8Array>, secrets: readonly string[]): ReadableStream<Uint8Array> {
  const patterns = secretPatterns(secrets);
  if (!patterns.length) return body;
  const keep = Math.max(...patterns.map((p) => p.length)) - 1;
  let carry = new Uint8Array(0);
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const data = new Uint8Array(carry.length + chunk.length);
        data.set(carry);
        data.set(chunk, carry.length);
        // a match may start in the last `keep` bytes and end in the next chunk: those wait
        const { out, consumed } = redactBytes(data, patterns, Math.max(0, data.length - keep));
        carry = data.slice(consumed);
        if (out.length) controller.enqueue(out);
      },
      flush(controller) {
        const { out } = redactBytes(carry, patterns, carry.length);
        if (out.length) controller.enqueue(out);
      },
    }),
  );
}
