// HTTP basic authentication (RFC 7617): the credentials of an Authorization
// header, and a comparison that takes as long whatever the guess.
import { createHash, timingSafeEqual } from "node:crypto";

/** the user and password of a `Basic` Authorization header; undefined for anything else */
export function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!m) return undefined;
  const text = Buffer.from(m[1]!, "base64").toString("utf8");
  const at = text.indexOf(":");
  return at > 0 ? { user: text.slice(0, at), password: text.slice(at + 1) } : undefined;
}

/** equal strings, compared in constant time (their digests: the lengths are not told either) */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
