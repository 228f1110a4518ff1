// Envelope encryption: sealed values never hold the plaintext, each secret has
// its own data key, the field context is bound, tampering is detected, and
// rotation re-wraps data keys without touching ciphertexts.
import { describe, expect, it } from "vitest";
import { createKeyring, keyIdOf, SealedValueError } from "../../src/lib/envelope.ts";

describe("envelope encryption", () => {
  it("seals and opens; the sealed text holds neither the secret nor its base64", async () => {
    const k = await createKeyring("a long enough secret key");
    const secret = "p@ssw0rd-ééé";
    const sealed = await k.seal(secret, "datasource:abc:password");
    expect(sealed.startsWith(`v1.${k.id}.`)).toBe(true);
    expect(sealed).not.toContain(secret);
    expect(sealed).not.toContain(Buffer.from(secret).toString("base64url").slice(0, 8));
    expect(await k.open(sealed, "datasource:abc:password")).toBe(secret);
  });

  it("a new data key and iv for every secret: the same secret seals differently", async () => {
    const k = await createKeyring("key");
    const [a, b] = [await k.seal("same", "c"), await k.seal("same", "c")];
    expect(a).not.toBe(b);
    expect(a.split(".")[2]).not.toBe(b.split(".")[2]);
  });

  it("a value moved to another field, or changed, does not open", async () => {
    const k = await createKeyring("key");
    const sealed = await k.seal("secret", "datasource:a:password");
    await expect(k.open(sealed, "datasource:b:password")).rejects.toBeInstanceOf(SealedValueError);
    const parts = sealed.split(".");
    const data = Buffer.from(parts[4]!, "base64url");
    data[0]! ^= 1;
    parts[4] = data.toString("base64url");
    await expect(k.open(parts.join("."), "datasource:a:password")).rejects.toThrow("cannot be decrypted");
    await expect(k.open("garbage", "x")).rejects.toThrow("not a sealed value");
  });

  it("another secret key cannot open it; rotation re-wraps the data key and keeps the ciphertext", async () => {
    const old = await createKeyring("old key");
    const next = await createKeyring("new key");
    expect(next.id).not.toBe(old.id);
    const sealed = await old.seal("secret", "ctx");
    await expect(next.open(sealed, "ctx")).rejects.toThrow(`sealed with key ${old.id}`);
    const rotated = await next.rewrap(sealed, old);
    expect(keyIdOf(rotated)).toBe(next.id);
    expect(rotated.split(".").slice(3)).toEqual(sealed.split(".").slice(3));
    expect(await next.open(rotated, "ctx")).toBe("secret");
    expect(await next.rewrap(rotated, old)).toBe(rotated);
    // the same secret key always derives the same keyring
    expect((await createKeyring("new key")).id).toBe(next.id);
  });
});
