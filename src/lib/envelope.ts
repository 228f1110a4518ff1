// Envelope encryption of secrets at rest, with the Web Crypto API only (no
// hand-written crypto): every secret is sealed with its own random AES-256-GCM
// data key; the data key is wrapped (AES-KW) by a key-encryption key derived
// with HKDF-SHA-256 from the configured secret key. Rotating the secret key
// re-wraps data keys; ciphertexts never change. The context string (for
// example "datasource:<uid>:password") is bound as GCM additional data, so a
// sealed value cannot be moved to another field.
//
// Sealed form: "v1.<key id>.<wrapped data key>.<iv>.<ciphertext>", base64url parts.

const subtle = globalThis.crypto.subtle;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface Keyring {
  /** names the key-encryption key (not secret): sealed values carry it */
  readonly id: string;
  seal(plaintext: string, context: string): Promise<string>;
  open(sealed: string, context: string): Promise<string>;
  /** the same secret re-wrapped under this keyring, from a value sealed under `from` */
  rewrap(sealed: string, from: Keyring): Promise<string>;
}

export class SealedValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SealedValueError";
  }
}

const b64 = (bytes: ArrayBuffer | Uint8Array) => Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)).toString("base64url");
const unb64 = (text: string): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(text, "base64url"));

interface Parts {
  keyId: string;
  wrapped: Uint8Array<ArrayBuffer>;
  iv: Uint8Array<ArrayBuffer>;
  ciphertext: Uint8Array<ArrayBuffer>;
}

/** how each keyring unwraps its data keys, for another keyring's rewrap (never exposed) */
const unwrappers = new WeakMap<Keyring, (p: Parts) => Promise<CryptoKey>>();

function parse(sealed: string): Parts {
  const parts = sealed.split(".");
  if (parts.length !== 5 || parts[0] !== "v1") throw new SealedValueError("not a sealed value (expected v1.<key id>.<key>.<iv>.<data>)");
  return { keyId: parts[1]!, wrapped: unb64(parts[2]!), iv: unb64(parts[3]!), ciphertext: unb64(parts[4]!) };
}

/** the keyring of a secret key (any text; at least 16 characters is sensible) */
export async function createKeyring(secretKey: string): Promise<Keyring> {
  if (secretKey.length === 0) throw new Error("the secret key must not be empty");
  const material = await subtle.importKey("raw", encoder.encode(secretKey), "HKDF", false, ["deriveKey", "deriveBits"]);
  const hkdf = (info: string) => ({ name: "HKDF", hash: "SHA-256", salt: encoder.encode("outpost secrets v1"), info: encoder.encode(info) });
  const kek = await subtle.deriveKey(hkdf("key-encryption key"), material, { name: "AES-KW", length: 256 }, false, ["wrapKey", "unwrapKey"]);
  const id = b64(await subtle.deriveBits(hkdf("key id"), material, 64));

  const unwrap = async (p: Parts): Promise<CryptoKey> => {
    if (p.keyId !== id) throw new SealedValueError(`sealed with key ${p.keyId}, not with the current key ${id}: rotate it first`);
    try {
      return await subtle.unwrapKey("raw", p.wrapped, kek, "AES-KW", { name: "AES-GCM", length: 256 }, true, ["encrypt", "decrypt"]);
    } catch {
      throw new SealedValueError("the data key cannot be unwrapped: the sealed value is damaged");
    }
  };
  const keyring: Keyring = {
    id,
    async seal(plaintext, context) {
      const dataKey = await subtle.generateKey({ name: "AES-GCM", length: 256 }, true, ["encrypt", "decrypt"]);
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const ciphertext = await subtle.encrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(context) }, dataKey, encoder.encode(plaintext));
      const wrapped = await subtle.wrapKey("raw", dataKey, kek, "AES-KW");
      return `v1.${id}.${b64(wrapped)}.${b64(iv)}.${b64(ciphertext)}`;
    },
    async open(sealed, context) {
      const p = parse(sealed);
      const dataKey = await unwrap(p);
      try {
        return decoder.decode(await subtle.decrypt({ name: "AES-GCM", iv: p.iv, additionalData: encoder.encode(context) }, dataKey, p.ciphertext));
      } catch {
        throw new SealedValueError("the sealed value cannot be decrypted: damaged, or sealed for another field");
      }
    },
    async rewrap(sealed, from) {
      const p = parse(sealed);
      if (p.keyId === id) return sealed;
      const unwrapOld = unwrappers.get(from);
      if (!unwrapOld) throw new Error("rewrap needs a keyring made by createKeyring");
      const dataKey = await unwrapOld(p);
      const wrapped = await subtle.wrapKey("raw", dataKey, kek, "AES-KW");
      return `v1.${id}.${b64(wrapped)}.${b64(p.iv)}.${b64(p.ciphertext)}`;
    },
  };
  unwrappers.set(keyring, unwrap);
  return keyring;
}

/** the key id a sealed value was wrapped with */
export const keyIdOf = (sealed: string): string => parse(sealed).keyId;
