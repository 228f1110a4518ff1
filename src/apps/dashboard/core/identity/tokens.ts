// Service account tokens: "<prefix>_<32 alphanumerics>_<crc32 hex>", the
// real product's format with Outpost's own prefix. Only a SHA-256 of the whole
// token is stored; the checksum lets a malformed or mistyped token be refused
// without a lookup.
import { createHash } from "node:crypto";
import CRC32 from "crc-32";
import { newUid } from "../../../../lib/ids.ts";

export const TOKEN_PREFIX = "opsa";

export function newToken(): string {
  const body = `${TOKEN_PREFIX}_${newUid(32)}`;
  return `${body}_${checksum(body)}`;
}

/** CRC32 of "<prefix>_<secret>", little-endian hex, as the real product prints it */
function checksum(body: string): string {
  const crc = CRC32.str(body) >>> 0;
  const bytes = [crc & 0xff, (crc >>> 8) & 0xff, (crc >>> 16) & 0xff, (crc >>> 24) & 0xff];
  return bytes.map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function isWellFormedToken(token: string): boolean {
  const m = /^([a-z]+_[A-Za-z0-9]{32})_([0-9a-f]{8})$/.exec(token);
  return m !== null && m[1]!.startsWith(`${TOKEN_PREFIX}_`) && checksum(m[1]!) === m[2];
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
