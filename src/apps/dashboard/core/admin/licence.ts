// Licence tokens (spec "Licence (enterprise)", reference §9.3): a licence is a
// JWT signed RS256 by the issuer's private key and verified here against the
// RSA public key (SPKI PEM) the config names. Verification is jose's, never
// hand-written crypto; this file only narrows what is accepted (RS256, an
// RSA key of 2048 bits or more, exp required) and turns jose's errors into
// messages safe to show to clients. scripts/licence.ts issues the tokens.
import { errors, importSPKI, jwtVerify } from "jose";

/** the claims of a verified licence token; see LICENCE_FIELDS for the known ones */
export interface LicenceClaims {
  [k: string]: unknown;
}

export type LicenceErrorReason = "malformed" | "algorithm" | "signature" | "expired" | "not-yet-valid" | "claims" | "no-key" | "invalid";

/**
 * A licence token that cannot be accepted. The message names the problem and
 * is safe to show to clients (it never contains the token); `reason` is a
 * stable word for message ids and logs.
 */
export class LicenceError extends Error {
  readonly reason: LicenceErrorReason;
  constructor(message: string, reason: LicenceErrorReason = "invalid") {
    super(message);
    this.name = "LicenceError";
    this.reason = reason;
  }
}

/** the only signing algorithm accepted: an HS256 token "signed" with the public key text must never pass */
const ALGORITHM = "RS256";

/**
 * Imports a PEM SPKI ("-----BEGIN PUBLIC KEY-----") RSA public key. Throws an
 * Error naming the problem (a private key, a PKCS#1 key, a certificate, not
 * RSA, too short) so a misconfigured key file fails at startup, not on the
 * first licence upload.
 */
export async function importLicenceKey(pem: string): Promise<CryptoKey> {
  const text = pem.trim();
  const label = /^-----BEGIN ([A-Z0-9 ]+)-----/.exec(text)?.[1];
  if (label === undefined) throw new Error("licence public key is not a PEM block: expected -----BEGIN PUBLIC KEY-----");
  if (label.includes("PRIVATE KEY")) {
    throw new Error("licence public key file holds a private key: give the public key (licence-public.pem) instead");
  }
  if (label === "RSA PUBLIC KEY") {
    throw new Error("licence public key is PKCS#1 (BEGIN RSA PUBLIC KEY): convert it to SPKI (BEGIN PUBLIC KEY) with `openssl rsa -RSAPublicKey_in -pubout`");
  }
  if (label === "CERTIFICATE") throw new Error("licence public key is a certificate: give its SPKI public key (BEGIN PUBLIC KEY) instead");
  if (label !== "PUBLIC KEY") throw new Error(`licence public key has an unexpected PEM label "${label}": expected PUBLIC KEY`);

  let key: CryptoKey;
  try {
    key = await importSPKI(text, ALGORITHM);
  } catch (err) {
    // WebCrypto refuses non-RSA keys (EC, Ed25519) and broken DER alike
    throw new Error(`licence public key is not a valid RSA public key: ${err instanceof Error ? err.message : String(err)}`);
  }
  // jose checks the length only when verifying; checking here reports it at startup
  const bits = (key.algorithm as RsaHashedKeyAlgorithm).modulusLength;
  if (typeof bits !== "number" || bits < 2048) throw new Error(`licence public key has ${bits} bits: RS256 needs at least 2048`);
  return key;
}

/**
 * Verifies a licence token: the RS256 signature against `key`, then exp
 * (required) and nbf against `now` (epoch ms, injected so tests need no fake
 * clock). Returns the claims. Every refusal is a LicenceError; anything else
 * (a bug, a wrong kind of key) is rethrown as is.
 */
export async function verifyLicenceToken(token: string, key: CryptoKey | null | undefined, now: number): Promise<LicenceClaims> {
  if (!key) throw new LicenceError("no licence public key is configured", "no-key");
  try {
    // licence files and pasted tokens often end with a newline
    const { payload } = await jwtVerify(token.trim(), key, {
      algorithms: [ALGORITHM],
      currentDate: new Date(now),
      requiredClaims: ["exp"],
    });
    return payload as LicenceClaims;
  } catch (err) {
    throw toLicenceError(err);
  }
}

function toLicenceError(err: unknown): unknown {
  if (err instanceof errors.JWTExpired) return new LicenceError("licence token has expired", "expired");
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === "nbf" && err.reason === "check_failed") return new LicenceError("licence token is not valid yet", "not-yet-valid");
    if (err.reason === "missing") return new LicenceError(`licence token has no "${err.claim}" claim`, "claims");
    // the claim name comes from jose's own checks (exp, nbf, iat), never from the token
    return new LicenceError(`licence token has an invalid "${err.claim}" claim`, "claims");
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) return new LicenceError("licence token signature is invalid", "signature");
  if (err instanceof errors.JOSEAlgNotAllowed) return new LicenceError("licence token must be signed with RS256", "algorithm");
  // JWSInvalid, JWTInvalid, JOSENotSupported (crit, b64) and the rest: not a token we can read
  if (err instanceof errors.JOSEError) return new LicenceError("licence token is malformed", "malformed");
  return err;
}

type FieldDefault = number | string | boolean | readonly string[];

/**
 * Every field of the spec's licence object, in the spec's order, with the
 * value shown when the token lacks it (or carries it with the wrong type).
 */
const LICENCE_FIELDS: ReadonlyArray<readonly [string, FieldDefault]> = [
  ["status", 0],
  ["jti", ""],
  ["iss", ""],
  ["sub", ""],
  ["iat", 0],
  ["exp", 0],
  ["nbf", 0],
  ["lexp", 0],
  ["lid", ""],
  ["limit_by", ""],
  ["included_users", 0],
  ["lic_exp_warn_days", 0],
  ["tok_exp_warn_days", 0],
  ["update_days", 0],
  ["prod", []],
  ["company", ""],
  ["account", ""],
  ["slug", ""],
  ["usage_billing", false],
  ["max_concurrent_user_sessions", 0],
  ["details_url", ""],
  ["trial", false],
  ["trial_exp", 0],
  ["anonymousRatio", 0],
];

export const LICENCE_FIELD_NAMES: readonly string[] = LICENCE_FIELDS.map(([name]) => name);

/**
 * The licence object the API returns for verified claims: exactly the spec's
 * fields (claims outside the list are not echoed), each from the token when
 * it has the expected type, else the default; `status` is 1 (valid), since
 * only verified claims reach here.
 */
export function licenceView(claims: LicenceClaims): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const [name, fallback] of LICENCE_FIELDS) view[name] = pick(claims[name], fallback);
  view.status = 1;
  return view;
}

function pick(value: unknown, fallback: FieldDefault): unknown {
  if (Array.isArray(fallback)) {
    return Array.isArray(value) && value.every((v) => typeof v === "string") ? [...value] : [...fallback];
  }
  if (typeof fallback === "number") return typeof value === "number" && Number.isFinite(value) ? value : fallback;
  return typeof value === typeof fallback ? value : fallback;
}
