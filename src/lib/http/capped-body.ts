// Reading a response body that may be far larger than it looks: fetch
// decompresses gzip, deflate and brotli answers by itself, so a 1 MB answer
// can become gigabytes (issue 16 #5). The body is read chunk by chunk and
// abandoned once it passes the cap, so memory never grows past it.

/** the body as text, or `tooLarge()` thrown as soon as more than `maxBytes` decoded bytes arrived */
export async function readTextCapped(res: Response, maxBytes: number, tooLarge: () => Error): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const all = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return new TextDecoder().decode(all);
}
