// /api/licensing (enterprise): check, install, renew and remove the licence
// token (spec "Licence (enterprise)", "Licensing"; reference §9.3,
// conformance checks 193-195). Server administrators with a password only.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateLicenceKeyPair, issueLicenceToken, licenceClaims } from "../../../../scripts/licence.ts";
import { ADMIN, bearer } from "../../../helpers/api.ts";
import { startTestServer, testClock, useServer } from "../../../helpers/server.ts";

const ROOT_URL = "http://outpost.test:3000/";
const DAY_MS = 86_400_000;
const FIELDS = [
  "status", "jti", "iss", "sub", "iat", "exp", "nbf", "lexp", "lid", "limit_by", "included_users", "lic_exp_warn_days",
  "tok_exp_warn_days", "update_days", "prod", "company", "account", "slug", "usage_billing", "max_concurrent_user_sessions",
  "details_url", "trial", "trial_exp", "anonymousRatio",
];

const pair = generateLicenceKeyPair();
const otherPair = generateLicenceKeyPair();
const dir = mkdtempSync(join(tmpdir(), "outpost-licensing-"));
const keyFile = join(dir, "licence-public.pem");
writeFileSync(keyFile, pair.publicPem);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const clock = testClock();
const issue = (days = 30, privatePem = pair.privatePem) =>
  issueLicenceToken(privatePem, licenceClaims({ sub: ROOT_URL, company: "Acme", includedUsers: 25, days }, clock.now()));

describe("licensing", () => {
  const t = useServer({ "server.edition": "enterprise", "security.licence_public_key_file": keyFile, "dashboard.root_url": ROOT_URL }, clock);

  it("GET /api/licensing/check (no licence) -> 200 false", async () => {
    const r = await t.api.get("/api/licensing/check", { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toBe(false);
  });

  it("POST /api/licensing/token (bad signature, expired, malformed, missing) -> 400 with a message", async () => {
    const cases: Array<[string, unknown]> = [
      ["another key pair", { token: issue(30, otherPair.privatePem) }],
      ["expired", { token: issue(-1) }],
      ["malformed", { token: "abc" }],
      ["another instance", { token: issueLicenceToken(pair.privatePem, licenceClaims({ sub: "http://elsewhere.test/", days: 30 }, clock.now())) }],
      ["no token", {}],
      ["invalid JSON", "{nope"],
    ];
    for (const [what, body] of cases) {
      const r = await t.api.post("/api/licensing/token", { auth: ADMIN, body });
      expect({ what, status: r.status }).toEqual({ what, status: 400 });
      expect({ what, message: typeof r.body?.message }).toEqual({ what, message: "string" });
    }
    expect((await t.api.post("/api/licensing/token", { auth: ADMIN, body: { token: issue(30, otherPair.privatePem) } })).body.message)
      .toBe("licence token signature is invalid");
    expect((await t.api.post("/api/licensing/token", { auth: ADMIN, body: { token: issue(-1) } })).body.message).toBe("licence token has expired");
    const elsewhere = issueLicenceToken(pair.privatePem, licenceClaims({ sub: "http://elsewhere.test/", days: 30 }, clock.now()));
    expect((await t.api.post("/api/licensing/token", { auth: ADMIN, body: { token: elsewhere } })).body.message).toContain("another instance");
    expect((await t.api.get("/api/licensing/check", { auth: ADMIN })).body).toBe(false);
  });

  it("POST /api/licensing/token/renew (no licence) -> 400", async () => {
    const r = await t.api.post("/api/licensing/token/renew", { auth: ADMIN, body: {} });
    expect(r.status).toBe(400);
    expect(typeof r.body.message).toBe("string");
  });

  it("POST /api/licensing/token (valid) -> 200 with the licence fields; check -> true", async () => {
    const token = issue();
    const r = await t.api.post("/api/licensing/token", { auth: ADMIN, body: { token } });
    expect(r.status).toBe(200);
    for (const f of FIELDS) expect({ field: f, present: f in r.body }).toEqual({ field: f, present: true });
    expect(r.body.sub).toBe(ROOT_URL);
    expect(r.body.company).toBe("Acme");
    expect(r.body.included_users).toBe(25);
    expect(r.body.iss).toBe("outpost-licence-tool");
    expect(r.body.exp).toBe(Math.floor(clock.now() / 1000) + 30 * 86_400);
    expect(r.body.prod).toEqual(["svc-enterprise"]);
    expect(r.body.trial).toBe(false);
    const check = await t.api.get("/api/licensing/check", { auth: ADMIN });
    expect(check.status).toBe(200);
    expect(check.body).toBe(true);
  });

  it("POST /api/licensing/token (invalid, a licence installed) -> 400; the installed licence stays", async () => {
    expect((await t.api.post("/api/licensing/token", { auth: ADMIN, body: { token: "abc" } })).status).toBe(400);
    expect((await t.api.get("/api/licensing/check", { auth: ADMIN })).body).toBe(true);
  });

  it("POST /api/licensing/token/renew {} -> 200 with the licence fields", async () => {
    const r = await t.api.post("/api/licensing/token/renew", { auth: ADMIN, body: {} });
    expect(r.status).toBe(200);
    for (const f of FIELDS) expect({ field: f, present: f in r.body }).toEqual({ field: f, present: true });
    expect(r.body.company).toBe("Acme");
  });

  it("/api/licensing (service account token with the Admin role) -> 403 on every endpoint", async () => {
    const sa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "lic-sa", role: "Admin" } });
    expect(sa.status).toBe(201);
    const key = (await t.api.post(`/api/serviceaccounts/${sa.body.id}/tokens`, { auth: ADMIN, body: { name: "lic-sa-token" } })).body.key as string;
    const auth = bearer(key);
    expect((await t.api.get("/api/licensing/check", { auth })).status).toBe(403);
    expect((await t.api.post("/api/licensing/token", { auth, body: { token: issue() } })).status).toBe(403);
    expect((await t.api.post("/api/licensing/token/renew", { auth, body: {} })).status).toBe(403);
    expect((await t.api.delete("/api/licensing/token", { auth, body: { instance: ROOT_URL } })).status).toBe(403);
    expect((await t.api.get("/api/licensing/check", { auth: ADMIN })).body).toBe(true);
  });

  it("/api/licensing (org Admin, not a server admin) -> 403 on every endpoint; no credentials -> 401", async () => {
    const { auth } = await t.api.user("lic-org-admin", "Admin");
    expect((await t.api.get("/api/licensing/check", { auth })).status).toBe(403);
    expect((await t.api.post("/api/licensing/token", { auth, body: { token: issue() } })).status).toBe(403);
    expect((await t.api.post("/api/licensing/token/renew", { auth, body: {} })).status).toBe(403);
    expect((await t.api.delete("/api/licensing/token", { auth, body: { instance: ROOT_URL } })).status).toBe(403);
    expect((await t.api.get("/api/licensing/check")).status).toBe(401);
    expect((await t.api.get("/api/licensing/check", { auth: ADMIN })).body).toBe(true);
  });

  it("DELETE /api/licensing/token {instance: http://wrong.example/} -> 422; missing instance -> 422", async () => {
    const r = await t.api.delete("/api/licensing/token", { auth: ADMIN, body: { instance: "http://wrong.example/" } });
    expect(r.status).toBe(422);
    expect(typeof r.body.message).toBe("string");
    expect((await t.api.delete("/api/licensing/token", { auth: ADMIN, body: {} })).status).toBe(422);
    expect((await t.api.get("/api/licensing/check", { auth: ADMIN })).body).toBe(true);
  });

  it("DELETE /api/licensing/token {instance: own root url without the slash} -> 202 {}; check -> false; again -> 202", async () => {
    const r = await t.api.delete("/api/licensing/token", { auth: ADMIN, body: { instance: "http://outpost.test:3000" } });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({});
    expect((await t.api.get("/api/licensing/check", { auth: ADMIN })).body).toBe(false);
    const again = await t.api.delete("/api/licensing/token", { auth: ADMIN, body: { instance: ROOT_URL } });
    expect(again.status).toBe(202);
    expect(again.body).toEqual({});
  });

  it("a licence that expires while installed -> check false, renew 400", async () => {
    expect((await t.api.post("/api/licensing/token", { auth: ADMIN, body: { token: issue(1) } })).status).toBe(200);
    expect((await t.api.get("/api/licensing/check", { auth: ADMIN })).body).toBe(true);
    clock.advance(2 * DAY_MS);
    expect((await t.api.get("/api/licensing/check", { auth: ADMIN })).body).toBe(false);
    const renew = await t.api.post("/api/licensing/token/renew", { auth: ADMIN, body: {} });
    expect(renew.status).toBe(400);
    expect(renew.body.message).toBe("licence token has expired");
  });
});

describe("licensing (no public key configured)", () => {
  const t = useServer({ "server.edition": "enterprise" });

  it("POST /api/licensing/token -> 400 no licence public key is configured; check -> false", async () => {
    const r = await t.api.post("/api/licensing/token", { auth: ADMIN, body: { token: issue() } });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe("no licence public key is configured");
    expect((await t.api.get("/api/licensing/check", { auth: ADMIN })).body).toBe(false);
  });
});

describe("licensing (key file problems)", () => {
  it("a key file that does not exist -> the server does not start", async () => {
    const missing = join(dir, "no-such-key.pem");
    let error: unknown;
    try {
      const server = await startTestServer({ "server.edition": "enterprise", "security.licence_public_key_file": missing });
      await server.stop();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain("security.licence_public_key_file");
  });

  it("a key file holding a private key -> the server does not start", async () => {
    const wrong = join(dir, "private.pem");
    writeFileSync(wrong, pair.privatePem);
    await expect(startTestServer({ "server.edition": "enterprise", "security.licence_public_key_file": wrong })).rejects.toThrow(/private key/);
  });
});

describe("licensing (oss edition)", () => {
  const t = useServer();

  it("GET /api/licensing/check (oss) -> 404", async () => {
    expect((await t.api.get("/api/licensing/check", { auth: ADMIN })).status).toBe(404);
    expect((await t.api.post("/api/licensing/token", { auth: ADMIN, body: { token: "abc" } })).status).toBe(404);
  });
});
