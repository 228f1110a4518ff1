// Licence tokens: what scripts/licence.ts issues, core/admin/licence.ts accepts,
// and the exact refusals clients see. Time is injected (`now`), never faked.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SignJWT, UnsecuredJWT } from "jose";
import forge from "node-forge";
import { afterAll, describe, expect, it } from "vitest";
import {
  LICENCE_FIELD_NAMES,
  LicenceError,
  importLicenceKey,
  licenceView,
  verifyLicenceToken,
} from "../../../../src/apps/dashboard/core/admin/licence.ts";
import { generateLicenceKeyPair, issueLicenceToken, licenceClaims } from "../../../../scripts/licence.ts";
import { bunBin, repoRoot } from "../../../helpers/paths.ts";

// forge hands generation to node:crypto, so two pairs cost milliseconds
const pair = generateLicenceKeyPair();
const otherPair = generateLicenceKeyPair();
const key = await importLicenceKey(pair.publicPem);
const otherKey = await importLicenceKey(otherPair.publicPem);

const NOW = Date.UTC(2030, 0, 15, 12, 0, 0);
const DAY_MS = 86_400_000;
const ROOT_URL = "https://outpost.example.com/";

const issue = (extra: Record<string, unknown> = {}, days = 365) =>
  issueLicenceToken(pair.privatePem, licenceClaims({ sub: ROOT_URL, company: "Acme", includedUsers: 25, days, extra }, NOW));

async function refusal(promise: Promise<unknown>): Promise<LicenceError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LicenceError);
  return err as LicenceError;
}

describe("licence tokens", () => {
  it("a token issued by the tool verifies, and the view has every spec field", async () => {
    const token = issue();
    expect(JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString())).toEqual({ alg: "RS256", typ: "JWT" });
    const claims = await verifyLicenceToken(token, key, NOW + 1000);
    const iat = NOW / 1000;
    expect(claims).toMatchObject({ iss: "outpost-licence-tool", sub: ROOT_URL, iat, nbf: iat, exp: iat + 365 * 86_400, lexp: iat + 365 * 86_400 });

    const view = licenceView(claims);
    expect(Object.keys(view).sort()).toEqual([...LICENCE_FIELD_NAMES].sort());
    expect(LICENCE_FIELD_NAMES).toHaveLength(24);
    expect(view).toMatchObject({
      status: 1,
      sub: ROOT_URL,
      company: "Acme",
      included_users: 25,
      limit_by: "users",
      lic_exp_warn_days: 30,
      tok_exp_warn_days: 2,
      update_days: 1,
      prod: ["svc-enterprise"],
      usage_billing: false,
      max_concurrent_user_sessions: 0,
      details_url: "",
      trial: false,
      trial_exp: 0,
      anonymousRatio: 0,
    });
    expect(view.jti).toEqual(expect.any(String));
    expect(view.lid).toEqual(expect.any(String));
  });

  it("a trial licence carries trial_exp = exp; a token ending in a newline is accepted", async () => {
    const claims = licenceClaims({ sub: ROOT_URL, trial: true, days: 30 }, NOW);
    const verified = await verifyLicenceToken(`${issueLicenceToken(pair.privatePem, claims)}\n`, key, NOW);
    expect(verified).toMatchObject({ trial: true, trial_exp: claims.exp });
  });

  it("a token signed by another key -> signature is invalid", async () => {
    const err = await refusal(verifyLicenceToken(issue(), otherKey, NOW));
    expect(err.message).toBe("licence token signature is invalid");
    expect(err.reason).toBe("signature");
  });

  it("a tampered payload -> signature is invalid, and the message never quotes the token", async () => {
    const [header, payload, signature] = issue().split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, included_users: 100_000 })).toString("base64url");
    const token = `${header}.${forged}.${signature}`;
    const err = await refusal(verifyLicenceToken(token, key, NOW));
    expect(err.message).toBe("licence token signature is invalid");
    expect(err.message).not.toContain(forged);
  });

  it("an expired licence -> has expired (negative days, exp overridden, or time moved on)", async () => {
    for (const [token, at] of [
      [issue({}, -1), NOW],
      [issue({ exp: NOW / 1000 - 60 }), NOW],
      [issue({}, 30), NOW + 31 * DAY_MS],
    ] as const) {
      const err = await refusal(verifyLicenceToken(token, key, at));
      expect(err.message).toBe("licence token has expired");
    }
  });

  it("nbf in the future -> not valid yet", async () => {
    const err = await refusal(verifyLicenceToken(issue({ nbf: NOW / 1000 + 3600 }), key, NOW));
    expect(err.message).toBe("licence token is not valid yet");
  });

  it("a token without exp is refused (no perpetual licences)", async () => {
    const err = await refusal(verifyLicenceToken(issue({ exp: undefined }), key, NOW));
    expect(err.message).toBe('licence token has no "exp" claim');
  });

  it("garbage -> malformed", async () => {
    for (const token of ["not a token", "", "a.b.c", "eyJhbGciOiJSUzI1NiJ9.e30"]) {
      const err = await refusal(verifyLicenceToken(token, key, NOW));
      expect(err.message).toBe("licence token is malformed");
    }
  });

  it("HS256 (even keyed with the public key text) and alg none are refused", async () => {
    for (const secret of ["a shared secret of some length", pair.publicPem]) {
      const hs = await new SignJWT({ sub: ROOT_URL })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setExpirationTime(NOW / 1000 + 3600)
        .sign(new TextEncoder().encode(secret));
      const err = await refusal(verifyLicenceToken(hs, key, NOW));
      expect(err.message).toBe("licence token must be signed with RS256");
    }
    const none = new UnsecuredJWT({ sub: ROOT_URL, exp: NOW / 1000 + 3600 }).encode();
    expect((await refusal(verifyLicenceToken(none, key, NOW))).message).toBe("licence token must be signed with RS256");
  });

  it("no key configured -> says so", async () => {
    const err = await refusal(verifyLicenceToken(issue(), null, NOW));
    expect(err.message).toBe("no licence public key is configured");
  });
});

describe("importLicenceKey", () => {
  it("refuses what is not an RSA SPKI public key of 2048 bits or more, naming the problem", async () => {
    const short = forge.pki.publicKeyToPem(forge.pki.rsa.generateKeyPair({ bits: 1024, e: 0x10001 }).publicKey);
    const pkcs1 = forge.pki.publicKeyToRSAPublicKeyPem(forge.pki.publicKeyFromPem(pair.publicPem));
    const cases: Array<[string, string]> = [
      ["hello", "licence public key is not a PEM block"],
      [pair.privatePem, "holds a private key"],
      [pkcs1, "is PKCS#1"],
      [short, "has 1024 bits"],
      ["-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----", "is not a valid RSA public key"],
    ];
    for (const [pem, message] of cases) {
      const err = await importLicenceKey(pem).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toContain(message);
    }
  });
});

describe("licenceView", () => {
  it("fills defaults for missing or mistyped fields and echoes nothing outside the spec list", () => {
    const view = licenceView({ company: 42, prod: "x", included_users: "9", secret: "s", sub: ROOT_URL });
    expect(view).toMatchObject({ status: 1, company: "", prod: [], included_users: 0, trial: false, sub: ROOT_URL, exp: 0 });
    expect(view).not.toHaveProperty("secret");
  });
});

describe("scripts/licence.ts", () => {
  const dir = mkdtempSync(join(tmpdir(), "outpost-licence-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = (...args: string[]) => spawnSync(bunBin, ["scripts/licence.ts", ...args], { cwd: repoRoot, encoding: "utf8" });

  it("keygen writes the pair (private key 0600) and issue prints a token that verifies", async () => {
    const keygen = run("keygen", "--out", dir);
    expect(keygen.stderr).toBe("");
    expect(keygen.status).toBe(0);
    const privatePath = join(dir, "licence-private.pem");
    const publicPath = join(dir, "licence-public.pem");
    expect(statSync(privatePath).mode & 0o777).toBe(0o600);
    expect(readFileSync(publicPath, "utf8")).toMatch(/^-----BEGIN PUBLIC KEY-----/);

    const issued = run("issue", "--key", privatePath, "--sub", ROOT_URL, "--company", "Acme", "--users", "10", "--trial", "--claims", '{"slug":"acme"}');
    expect(issued.stderr).toBe("");
    expect(issued.status).toBe(0);
    const claims = await verifyLicenceToken(issued.stdout, await importLicenceKey(readFileSync(publicPath, "utf8")), Date.now());
    expect(licenceView(claims)).toMatchObject({ sub: ROOT_URL, company: "Acme", included_users: 10, trial: true, slug: "acme", status: 1 });
    expect(claims.trial_exp).toBe(claims.exp);
  });

  it("keygen refuses to replace an existing pair without --force", () => {
    const again = run("keygen", "--out", dir);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain("already exists: pass --force");
  });
});
