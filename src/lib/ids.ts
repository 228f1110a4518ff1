// Identifiers. uids follow the real product's shape: 14 characters from
// [a-zA-Z0-9] (short uids), random from the platform's CSPRNG.
const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

export function newUid(length = 14): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
  let out = "";
  // rejection sampling keeps the distribution uniform (248 = 4 * 62)
  for (const b of bytes) {
    if (b < 248) out += alphabet[b % 62];
    if (out.length === length) return out;
  }
  return out + newUid(length - out.length);
}
