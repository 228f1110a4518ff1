// Secrets reflected by an upstream are replaced, also across chunk boundaries.
import { describe, expect, it } from "vitest";
import { redactStream, redactText } from "../../../../src/apps/dashboard/core/secrets/secret-redaction.ts";

async function throughChunks(text: string, size: number, secrets: string[]): Promise<string> {
  const bytes = new TextEncoder().encode(text);
  const source = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < bytes.length; i += size) c.enqueue(bytes.slice(i, i + size));
      c.close();
    },
  });
  return new Response(redactStream(source, secrets)).text();
}

describe("secret redaction", () => {
  it("text: the secret as is and JSON-escaped; short values are left alone", () => {
    expect(redactText('pw=hunter22 and "a\\"b-secret"', ["hunter22", 'a"b-secret', "ab"])).toBe('pw=[redacted] and "[redacted]"');
  });

  it("streams: a secret split over chunks of any size is still replaced; other bytes pass unchanged", async () => {
    const text = "head s3cret-value mid s3cret-value tail ünïcode";
    for (const size of [1, 2, 3, 5, 7, 64]) {
      expect(await throughChunks(text, size, ["s3cret-value"])).toBe("head [redacted] mid [redacted] tail ünïcode");
    }
    expect(await throughChunks("nothing to hide", 4, [])).toBe("nothing to hide");
    // one secret inside another: the longer one wins wherever it stands, the shorter is caught alone
    for (const size of [1, 3, 100]) {
      expect(await throughChunks("x token-longer y token z", size, ["token", "token-longer"])).toBe("x [redacted] y [redacted] z");
    }
  });
});
