// The licence issuer's tool: makes the RSA key pair and signs licence tokens
// that src/apps/dashboard/core/admin/licence.ts verifies (spec "Licence
// (enterprise)", reference §9.3 for the claims). Operators run it; tests
// import it.
//
//   bun scripts/licence.ts keygen --out <dir> [--force]
//   bun scripts/licence.ts issue --key <private.pem> --sub <root url> [--company <name>]
//       [--days <n>] [--users <n>] [--trial] [--claims <json object>]
//
// Keys and signatures use node-forge, the project's library for keys and
// certificates. forge hands RSA key generation to node:crypto when the runtime
// has it (Node, Bun), so a 2048-bit pair takes milliseconds instead of seconds.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import forge from "node-forge";

export const PRIVATE_KEY_FILE = "licence-private.pem";
export const PUBLIC_KEY_FILE = "licence-public.pem";
/** the iss of tokens made here, so a licence shows where it came from */
export const ISSUER = "outpost-licence-tool";

const DAY_SECONDS = 86_400;

export interface LicenceKeyPair {
  /** PKCS#8 ("BEGIN PRIVATE KEY") */
  privatePem: string;
  /** SPKI ("BEGIN PUBLIC KEY"), what the server's licence key setting names */
  publicPem: string;
}

/** a fresh RSA 2048 pair */
export function generateLicenceKeyPair(): LicenceKeyPair {
  const { privateKey, publicKey } = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  const privateInfo = forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(privateKey));
  return { privatePem: forge.pki.privateKeyInfoToPem(privateInfo), publicPem: forge.pki.publicKeyToPem(publicKey) };
}

/**
 * Writes the pair into `dir` (created if missing), the private key with mode
 * 0600. Refuses to replace existing files unless `force`: a new key silently
 * invalidates every licence the old one signed.
 */
export function writeLicenceKeyPair(dir: string, pair: LicenceKeyPair, force = false): { privatePath: string; publicPath: string } {
  mkdirSync(dir, { recursive: true });
  const privatePath = join(dir, PRIVATE_KEY_FILE);
  const publicPath = join(dir, PUBLIC_KEY_FILE);
  // both checked before either is written, so a refusal never leaves a mismatched pair
  const existing = force ? undefined : [privatePath, publicPath].find((path) => existsSync(path));
  if (existing !== undefined) throw new Error(`${existing} already exists: pass --force to replace the key pair`);
  writeFileSync(privatePath, pair.privatePem, { mode: 0o600 });
  // the mode option applies only when the file is created; --force may reuse one
  chmodSync(privatePath, 0o600);
  writeFileSync(publicPath, pair.publicPem, { mode: 0o644 });
  return { privatePath, publicPath };
}

const base64url = (bytes: string, encoding: "utf8" | "binary") => Buffer.from(bytes, encoding).toString("base64url");

/**
 * Signs `claims` as a compact JWT, RS256 (RSASSA-PKCS1-v1_5 with SHA-256),
 * header {alg: "RS256", typ: "JWT"}. Accepts a PKCS#8 or PKCS#1 RSA private
 * key PEM.
 */
export function issueLicenceToken(privatePem: string, claims: Record<string, unknown>): string {
  let key: forge.pki.rsa.PrivateKey;
  try {
    key = forge.pki.privateKeyFromPem(privatePem) as forge.pki.rsa.PrivateKey;
  } catch (err) {
    throw new Error(`cannot read the licence private key (an unencrypted RSA PEM is expected): ${err instanceof Error ? err.message : String(err)}`);
  }
  // the verifier (jose) refuses RS256 with shorter keys; fail here, not there
  if (key.n.bitLength() < 2048) throw new Error(`licence private key has ${key.n.bitLength()} bits: RS256 needs at least 2048`);
  const signingInput = `${base64url(JSON.stringify({ alg: "RS256", typ: "JWT" }), "utf8")}.${base64url(JSON.stringify(claims), "utf8")}`;
  const md = forge.md.sha256.create();
  md.update(signingInput, "utf8");
  return `${signingInput}.${base64url(key.sign(md), "binary")}`;
}

export interface IssueOptions {
  /** the instance's root URL; DELETE /api/licensing/token compares it */
  sub: string;
  company?: string | undefined;
  account?: string | undefined;
  slug?: string | undefined;
  /** validity from now; negative makes an already expired licence (tests) */
  days?: number | undefined;
  includedUsers?: number | undefined;
  trial?: boolean | undefined;
  /** merged last, so it can override anything (tests: exp, nbf) */
  extra?: Record<string, unknown> | undefined;
}

/** the claim set of a new licence, times in epoch seconds from `now` (epoch ms) */
export function licenceClaims(options: IssueOptions, now: number = Date.now()): Record<string, unknown> {
  const days = options.days ?? 365;
  const iat = Math.floor(now / 1000);
  const exp = iat + Math.round(days * DAY_SECONDS);
  const trial = options.trial ?? false;
  return {
    jti: crypto.randomUUID(),
    iss: ISSUER,
    sub: options.sub,
    iat,
    nbf: iat,
    exp,
    lexp: exp,
    lid: crypto.randomUUID().replaceAll("-", ""),
    limit_by: "users",
    included_users: options.includedUsers ?? 0,
    lic_exp_warn_days: 30,
    tok_exp_warn_days: 2,
    update_days: 1,
    prod: ["svc-enterprise"],
    company: options.company ?? "",
    account: options.account ?? "",
    slug: options.slug ?? "",
    usage_billing: false,
    max_concurrent_user_sessions: 0,
    details_url: "",
    trial,
    trial_exp: trial ? exp : 0,
    anonymousRatio: 0,
    status: 1,
    ...options.extra,
  };
}

function parseNumber(name: string, text: string, integer: boolean): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || (integer && (!Number.isInteger(n) || n < 0))) {
    throw new Error(`--${name} must be ${integer ? "a whole number of 0 or more" : "a number"}, got "${text}"`);
  }
  return n;
}

function parseClaims(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`--claims is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("--claims must be a JSON object");
  return value as Record<string, unknown>;
}

function parseRootUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`--sub must be the instance's root URL (http:// or https://), got "${text}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`--sub must be an http:// or https:// URL, got "${text}"`);
  return text;
}

export function buildLicenceProgram(out: (text: string) => void = (t) => process.stdout.write(t)): Command {
  const program = new Command("licence").description("make licence keys and sign licence tokens for Outpost");
  program
    .command("keygen")
    .description(`write ${PRIVATE_KEY_FILE} (mode 0600) and ${PUBLIC_KEY_FILE} (RSA 2048) into a directory`)
    .requiredOption("--out <dir>", "directory to write the key pair into")
    .option("--force", "replace an existing key pair (licences signed by it stop verifying)", false)
    .action((opts: { out: string; force: boolean }) => {
      const { privatePath, publicPath } = writeLicenceKeyPair(opts.out, generateLicenceKeyPair(), opts.force);
      out(`wrote ${privatePath}\nwrote ${publicPath}\n`);
    });
  program
    .command("issue")
    .description("print a licence token signed RS256 with the private key")
    .requiredOption("--key <file>", `private key PEM (${PRIVATE_KEY_FILE})`)
    .requiredOption("--sub <url>", "root URL of the licensed instance")
    .option("--company <name>", "licensee company name", "")
    .option("--account <name>", "licensee account", "")
    .option("--slug <slug>", "licensee slug", "")
    .option("--days <n>", "days of validity from now (negative: already expired)", "365")
    .option("--users <n>", "included_users", "0")
    .option("--trial", "mark the licence as a trial (trial_exp = exp)", false)
    .option("--claims <json>", "JSON object merged into the claims last")
    .action((opts: Record<string, string | boolean | undefined>) => {
      const options: IssueOptions = {
        sub: parseRootUrl(String(opts.sub)),
        company: String(opts.company ?? ""),
        account: String(opts.account ?? ""),
        slug: String(opts.slug ?? ""),
        days: parseNumber("days", String(opts.days), false),
        includedUsers: parseNumber("users", String(opts.users), true),
        trial: opts.trial === true,
        extra: typeof opts.claims === "string" ? parseClaims(opts.claims) : undefined,
      };
      out(`${issueLicenceToken(readFileSync(String(opts.key), "utf8"), licenceClaims(options))}\n`);
    });
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildLicenceProgram().parseAsync(argv);
  } catch (err) {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}

if ((import.meta as { main?: boolean }).main) await main(process.argv);
