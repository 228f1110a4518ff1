// GET /api/frontend/settings: build and licence information, the login form,
// and (server admins only) whether the built-in admin still has the default
// password, which follows a password change at once.
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateLicenceKeyPair, issueLicenceToken, licenceClaims } from "../../../../scripts/licence.ts";
import { ADMIN, basic, bearer } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

describe("GET /api/frontend/settings (oss)", () => {
  const t = useServer();

  it("signed-in user -> buildInfo, empty licenseInfo, password login; no default-password flag", async () => {
    const viewer = await t.api.user("fs-viewer", "Viewer");
    const r = await t.api.get("/api/frontend/settings", { auth: viewer.auth });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      buildInfo: { version: "12.0.0", commit: expect.any(String), edition: "Open Source", env: "production" },
      licenseInfo: {},
      passwordLogin: true,
      disableLoginForm: false,
      appSubUrl: "",
      outpost: { edition: "oss", version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
    });
    const health = (await t.api.get("/api/health")).body;
    expect(health.version).toBe(r.body.buildInfo.version);
    expect(health.outpostVersion).toBe(r.body.outpost.version);
  });

  it("no credentials -> 401; a service account token -> 200 without the flag", async () => {
    expect((await t.api.get("/api/frontend/settings")).status).toBe(401);
    const sa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "fs robot", role: "Admin" } });
    const key = (await t.api.post(`/api/serviceaccounts/${sa.body.id}/tokens`, { auth: ADMIN, body: { name: "fs" } })).body.key;
    const r = await t.api.get("/api/frontend/settings", { auth: bearer(key) });
    expect(r.status).toBe(200);
    expect(r.body.outpost).toEqual({ edition: "oss", version: expect.any(String) });
  });

  it("server admin -> adminPasswordIsDefault true until PUT /api/user/password, then false at once", async () => {
    const before = await t.api.get("/api/frontend/settings", { auth: ADMIN });
    expect(before.body.outpost).toEqual({ edition: "oss", version: expect.any(String), adminPasswordIsDefault: true });
    // asked again (the stored hash unchanged, so the remembered answer)
    expect((await t.api.get("/api/frontend/settings", { auth: ADMIN })).body.outpost.adminPasswordIsDefault).toBe(true);
    const changed = await t.api.put("/api/user/password", { auth: ADMIN, body: { oldPassword: "admin", newPassword: "a-better-one" } });
    expect(changed.status).toBe(200);
    const after = await t.api.get("/api/frontend/settings", { auth: basic("admin", "a-better-one") });
    expect(after.body.outpost).toEqual({ edition: "oss", version: expect.any(String), adminPasswordIsDefault: false });
    // and back: the stored hash changed again, so it is checked again
    await t.api.put("/api/user/password", { auth: basic("admin", "a-better-one"), body: { oldPassword: "a-better-one", newPassword: "admin" } });
    expect((await t.api.get("/api/frontend/settings", { auth: ADMIN })).body.outpost.adminPasswordIsDefault).toBe(true);
  });
});

describe("GET /api/frontend/settings (cloud)", () => {
  const t = useServer({ "server.edition": "cloud" });

  it("-> edition Cloud, no password login, licenseInfo without a licence", async () => {
    // the cloud edition refuses basic auth and password sign-in: a session is made in the database
    const cookie = randomBytes(32).toString("base64url");
    await t.server.db.pg.query(
      "insert into sessions (token_hash, user_id, expires_at) select $1, id, now() + interval '1 hour' from users where login = 'admin'",
      [createHash("sha256").update(cookie).digest("hex")],
    );
    const r = await t.api.get("/api/frontend/settings", { headers: { Cookie: `svc_session=${cookie}` } });
    expect(r.status).toBe(200);
    expect(r.body.buildInfo.edition).toBe("Cloud");
    expect(r.body.passwordLogin).toBe(false);
    expect(r.body.disableLoginForm).toBe(true);
    expect(r.body.outpost).toEqual({ edition: "cloud", version: expect.any(String), adminPasswordIsDefault: true });
    expect(r.body.licenseInfo).toMatchObject({
      expiry: 0, stateInfo: "No license found", hasValidLicense: false, licenseUrl: "/licence", edition: "Cloud",
    });
  });
});

const ROOT_URL = "http://outpost.test:3000/";
const pair = generateLicenceKeyPair();
const dir = mkdtempSync(join(tmpdir(), "outpost-fs-licence-"));
const keyFile = join(dir, "licence-public.pem");
writeFileSync(keyFile, pair.publicPem);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("GET /api/frontend/settings (enterprise)", () => {
  const t = useServer({ "server.edition": "enterprise", "security.licence_public_key_file": keyFile, "dashboard.root_url": ROOT_URL });

  it("-> licenseInfo from the installed licence", async () => {
    const none = await t.api.get("/api/frontend/settings", { auth: ADMIN });
    expect(none.body.buildInfo.edition).toBe("Enterprise");
    expect(none.body.licenseInfo).toEqual({
      expiry: 0, stateInfo: "No license found", licenseUrl: "/licence", edition: "Enterprise", enabledFeatures: {},
      hasValidLicense: false, appUrl: ROOT_URL,
    });
    const token = issueLicenceToken(pair.privatePem, licenceClaims({ sub: ROOT_URL, company: "Acme", includedUsers: 5, days: 30 }, Date.now()));
    expect((await t.api.post("/api/licensing/token", { auth: ADMIN, body: { token } })).status).toBe(200);
    const viewer = await t.api.user("fs-ent-viewer", "Viewer");
    const r = await t.api.get("/api/frontend/settings", { auth: viewer.auth });
    expect(r.body.licenseInfo).toMatchObject({ stateInfo: "", hasValidLicense: true, licenseUrl: "", edition: "Enterprise" });
    expect(r.body.licenseInfo.expiry).toBeGreaterThan(Date.now() / 1000 + 29 * 86_400);
    expect(JSON.stringify(r.body)).not.toContain(token);
  });
});
