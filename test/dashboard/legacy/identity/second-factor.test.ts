// The second factor (TOTP) of local users, through HTTP: enrolment, page sign-in
// in two steps, recovery codes, the clock skew window, replay, lock-out, basic
// auth refused (service account tokens unaffected), required-for-admins, the
// admin reset, and the secret sealed at rest and never shown again.
import { Secret, TOTP } from "otpauth";
import { describe, expect, it } from "vitest";
import { ADMIN, basic, bearer } from "../../../helpers/api.ts";
import { testClock, useServer, type TestServer } from "../../../helpers/server.ts";

const cookieOf = (name: string, setCookie: string | null) => new RegExp(`${name}=([^;]*)`).exec(setCookie ?? "")?.[1] ?? "";
const codeAt = (secret: string, timestamp: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp });
const STEP = 30_000;

// the middle of a 30-second step: ± a step stays clear of the edges
const clock = testClock(Math.floor(Date.now() / STEP) * STEP + STEP / 2);

type Api = ReturnType<typeof useServer>["api"];

/** signs in on the page with a password: the session cookie, or the pending sign-in */
async function pageLogin(api: Api, user: string, password: string) {
  const r = await api.post("/login", { body: { user, password } });
  const set = r.headers.get("set-cookie");
  return { r, session: cookieOf("svc_session", set), pending: cookieOf("svc_login_2fa", set) };
}

async function secondStep(api: Api, pending: string, code: string) {
  const r = await api.post("/login/2fa", { headers: { Cookie: `svc_login_2fa=${pending}` }, body: { code } });
  return { r, session: cookieOf("svc_session", r.headers.get("set-cookie")) };
}

const asSession = (session: string) => ({ headers: { Cookie: `svc_session=${session}` } });

/** a user with a second factor enabled, and a page session of it */
async function enrolled(api: Api, login: string, role: "Viewer" | "Admin" = "Viewer") {
  const u = await api.user(login, role);
  const { session } = await pageLogin(api, login, u.password);
  const enrol = await api.post("/api/user/2fa/enrol", { ...asSession(session), body: { password: u.password } });
  expect(enrol.status).toBe(200);
  const secret = enrol.body.secret as string;
  const confirm = await api.post("/api/user/2fa/confirm", { ...asSession(session), body: { code: codeAt(secret, clock.now()) } });
  expect(confirm.status).toBe(200);
  return { ...u, secret, session, recoveryCodes: confirm.body.recoveryCodes as string[] };
}

const sealedRows = (server: TestServer, userId: number) =>
  server.db.pg.query<{ owner: string; field: string; sealed: string }>("select owner, field, sealed from secrets where owner = $1", [`user:${userId}`]);

describe("second factor (TOTP)", () => {
  const t = useServer({}, clock);

  it("enrolment: a pending secret with its otpauth URL and QR code, confirmed by a code; ten recovery codes shown once", async () => {
    const u = await t.api.user("enroller", "Viewer");
    expect((await t.api.get("/api/user/2fa", { auth: u.auth })).body).toEqual({ enabled: false, recoveryCodesLeft: 0, enrolmentRequired: false });
    // the current password is needed: a session alone cannot put a factor on the account
    const noPassword = await t.api.post("/api/user/2fa/enrol", { auth: u.auth, body: {} });
    expect(noPassword.status).toBe(400);
    const wrongPassword = await t.api.post("/api/user/2fa/enrol", { auth: u.auth, body: { password: "wrong" } });
    expect(wrongPassword.status).toBe(400);
    const enrol = await t.api.post("/api/user/2fa/enrol", { auth: u.auth, body: { password: u.password } });
    expect(enrol.headers.get("cache-control")).toBe("no-store");
    expect(enrol.status).toBe(200);
    const secret = enrol.body.secret as string;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(enrol.body.otpauthUrl).toMatch(/^otpauth:\/\/totp\/Outpost:enroller\?.*secret=[A-Z2-7]{32}/);
    expect(enrol.body.otpauthUrl).toContain(`secret=${secret}`);
    expect(enrol.body.qrSvg).toMatch(/^<svg [^>]*viewBox="0 0 \d+ \d+"/);
    // pending: not enabled yet, basic auth still works
    expect((await t.api.get("/api/user/2fa", { auth: u.auth })).body.enabled).toBe(false);
    const wrong = await t.api.post("/api/user/2fa/confirm", { auth: u.auth, body: { code: "000000" === codeAt(secret, clock.now()) ? "111111" : "000000" } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.messageId).toBe("second-factor.invalid-code");
    const confirm = await t.api.post("/api/user/2fa/confirm", { auth: u.auth, body: { code: codeAt(secret, clock.now()) } });
    expect(confirm.status).toBe(200);
    const codes = confirm.body.recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    // from now on basic auth is refused: the page session (a sign-in with a code) shows the state
    const { pending } = await pageLogin(t.api, "enroller", u.password);
    clock.advance(STEP);
    const { session } = await secondStep(t.api, pending, codeAt(secret, clock.now()));
    const status = await t.api.get("/api/user/2fa", asSession(session));
    expect(status.body).toEqual({ enabled: true, recoveryCodesLeft: 10, enrolmentRequired: false });
    expect((await t.api.post("/api/user/2fa/enrol", { ...asSession(session), body: { password: u.password } })).status).toBe(409);

    // sealed at rest, never shown again, never logged
    const rows = (await sealedRows(t.server, u.id)).rows;
    expect(rows.map((r) => r.field)).toEqual(["totp"]);
    expect(rows[0]!.sealed).not.toContain(secret);
    const stored = JSON.stringify((await t.server.db.pg.query("select * from user_second_factor")).rows)
      + JSON.stringify((await t.server.db.pg.query("select * from user_recovery_codes")).rows);
    expect(stored).not.toContain(secret);
    for (const c of codes) expect(stored).not.toContain(c);
    for (const path of ["/api/user/2fa", "/api/user", "/api/users/" + u.id]) {
      expect(JSON.stringify((await t.api.get(path, { ...asSession(session), auth: path.startsWith("/api/users/") ? ADMIN : undefined })).body)).not.toContain(secret);
    }
    expect(JSON.stringify(t.server.logs)).not.toContain(secret);
  });

  it("sign-in: a password alone is not enough; a right code completes it, a wrong one is refused", async () => {
    const u = await enrolled(t.api, "signer");
    const first = await pageLogin(t.api, "signer", u.password);
    expect(first.r.status).toBe(401);
    expect(first.r.body).toMatchObject({ message: "second factor required", messageId: "login.second-factor-required", mfaRequired: true });
    expect(first.session).toBe("");
    expect(first.pending).not.toBe("");
    expect(first.r.headers.get("set-cookie")).toMatch(/svc_login_2fa=[^;]+;.*Path=\/login;.*HttpOnly/);
    // the pending sign-in is no session
    expect((await t.api.get("/api/user", { headers: { Cookie: `svc_session=${first.pending}; svc_login_2fa=${first.pending}` } })).status).toBe(401);
    // no pending sign-in, or a forged one: refused
    expect((await secondStep(t.api, "", codeAt(u.secret, clock.now()))).r.body.messageId).toBe("login.second-factor-expired");
    expect((await secondStep(t.api, first.pending.replace(/.$/, (ch) => (ch === "A" ? "B" : "A")), codeAt(u.secret, clock.now()))).r.status).toBe(401);
    clock.advance(STEP);
    const bad = await secondStep(t.api, first.pending, codeAt(u.secret, clock.now() + 10 * STEP));
    expect(bad.r.status).toBe(401);
    expect(bad.r.body.messageId).toBe("second-factor.invalid-code");
    expect(bad.session).toBe("");
    const ok = await secondStep(t.api, first.pending, codeAt(u.secret, clock.now()));
    expect(ok.r.status).toBe(200);
    expect(ok.r.body).toEqual({ message: "Logged in" });
    expect((await t.api.get("/api/user", asSession(ok.session))).body.login).toBe("signer");
    // a pending sign-in completes once
    clock.advance(STEP);
    expect((await secondStep(t.api, first.pending, codeAt(u.secret, clock.now()))).r.body.messageId).toBe("login.second-factor-expired");
    // and lasts five minutes
    const late = await pageLogin(t.api, "signer", u.password);
    clock.advance(5 * 60_000 + 1);
    expect((await secondStep(t.api, late.pending, codeAt(u.secret, clock.now()))).r.body.messageId).toBe("login.second-factor-expired");
  });

  it("a recovery code signs in once", async () => {
    const u = await enrolled(t.api, "recoverer");
    const code = u.recoveryCodes[3]!;
    const a = await pageLogin(t.api, "recoverer", u.password);
    const ok = await secondStep(t.api, a.pending, code.toUpperCase());
    expect(ok.r.status).toBe(200);
    const b = await pageLogin(t.api, "recoverer", u.password);
    expect((await secondStep(t.api, b.pending, code)).r.status).toBe(401);
    expect((await t.api.get("/api/user/2fa", asSession(ok.session))).body.recoveryCodesLeft).toBe(9);
    expect((await secondStep(t.api, b.pending, u.recoveryCodes[4]!)).r.status).toBe(200);
  });

  it("clock skew: one step either side is accepted, two are not", async () => {
    const u = await enrolled(t.api, "skewed");
    clock.advance(3 * STEP);
    const p = (await pageLogin(t.api, "skewed", u.password)).pending;
    expect((await secondStep(t.api, p, codeAt(u.secret, clock.now() - 2 * STEP))).r.status).toBe(401);
    expect((await secondStep(t.api, p, codeAt(u.secret, clock.now() + 2 * STEP))).r.status).toBe(401);
    expect((await secondStep(t.api, p, codeAt(u.secret, clock.now() - STEP))).r.status).toBe(200);
    clock.advance(3 * STEP);
    const q = (await pageLogin(t.api, "skewed", u.password)).pending;
    expect((await secondStep(t.api, q, codeAt(u.secret, clock.now() + STEP))).r.status).toBe(200);
  });

  it("a code is not accepted twice, nor one of an earlier step once a later one was used", async () => {
    const u = await enrolled(t.api, "replayer");
    clock.advance(STEP);
    const code = codeAt(u.secret, clock.now());
    expect((await secondStep(t.api, (await pageLogin(t.api, "replayer", u.password)).pending, code)).r.status).toBe(200);
    const again = await secondStep(t.api, (await pageLogin(t.api, "replayer", u.password)).pending, code);
    expect(again.r.status).toBe(401);
    expect(again.r.body.messageId).toBe("second-factor.invalid-code");
    // the confirming code was used too
    const v = await enrolled(t.api, "replayer2");
    expect((await secondStep(t.api, (await pageLogin(t.api, "replayer2", v.password)).pending, codeAt(v.secret, clock.now()))).r.status).toBe(401);
  });

  it("wrong codes lock the account out like wrong passwords; a right password does not clear them", async () => {
    const u = await enrolled(t.api, "guesser");
    clock.advance(STEP);
    const right = codeAt(u.secret, clock.now());
    const wrongCode = right === "123456" ? "654321" : "123456";
    for (let i = 0; i < 5; i++) {
      const p = (await pageLogin(t.api, "guesser", u.password)).pending;
      expect((await secondStep(t.api, p, wrongCode)).r.body.messageId).toBe("second-factor.invalid-code");
    }
    const p = (await pageLogin(t.api, "guesser", u.password)).pending;
    const locked = await secondStep(t.api, p, right);
    expect(locked.r.status).toBe(401);
    expect(locked.r.body.messageId).toBe("login-attempt.blocked");
    clock.advance(5 * 60_000);
    const q = (await pageLogin(t.api, "guesser", u.password)).pending;
    expect((await secondStep(t.api, q, codeAt(u.secret, clock.now()))).r.status).toBe(200);
  });

  it("basic auth is refused for a user with a second factor; a service account token still works", async () => {
    const u = await enrolled(t.api, "scripter", "Admin");
    const r = await t.api.get("/api/user", { auth: u.auth });
    expect(r.status).toBe(401);
    expect(r.body.messageId).toBe("basic-auth.second-factor");
    expect(r.body.message).toMatch(/service account token/);
    // a wrong password is still only a wrong password
    expect((await t.api.get("/api/user", { auth: basic("scripter", "wrong") })).body.message).toBe("Invalid username or password");
    // the user (an org Admin) makes a service account and a token from the page session
    const sa = await t.api.post("/api/serviceaccounts", { ...asSession(u.session), headers: { ...asSession(u.session).headers, Origin: t.server.urls.dashboard }, body: { name: "scripter-robot", role: "Viewer" } });
    expect(sa.status).toBe(201);
    const tok = await t.api.post(`/api/serviceaccounts/${sa.body.id}/tokens`, { headers: { ...asSession(u.session).headers, Origin: t.server.urls.dashboard }, body: { name: "t1" } });
    expect(tok.status).toBe(200);
    expect((await t.api.get("/api/org", { auth: bearer(tok.body.key) })).status).toBe(200);
  });

  it("turning it off needs the password or a code; a server admin can reset a user's second factor", async () => {
    const u = await enrolled(t.api, "leaver");
    const s = asSession(u.session).headers;
    expect((await t.api.delete("/api/user/2fa", { headers: s, body: {} })).status).toBe(400);
    expect((await t.api.delete("/api/user/2fa", { headers: s, body: { password: "wrong" } })).status).toBe(400);
    expect((await t.api.delete("/api/user/2fa", { headers: s, body: { password: u.password } })).status).toBe(200);
    expect((await t.api.get("/api/user", { auth: u.auth })).status).toBe(200);
    expect((await sealedRows(t.server, u.id)).rows).toEqual([]);

    const v = await enrolled(t.api, "phone-lost");
    const other = await t.api.user("not-admin", "Admin");
    expect((await t.api.delete(`/api/admin/users/${v.id}/2fa`, { auth: other.auth })).status).toBe(403);
    expect((await t.api.delete("/api/admin/users/99999/2fa", { auth: ADMIN })).status).toBe(404);
    const reset = await t.api.delete(`/api/admin/users/${v.id}/2fa`, { auth: ADMIN });
    expect(reset.status).toBe(200);
    expect((await t.api.get("/api/user/2fa", { auth: v.auth })).body).toEqual({ enabled: false, recoveryCodesLeft: 0, enrolmentRequired: false });
    expect((await pageLogin(t.api, "phone-lost", v.password)).r.status).toBe(200);
    expect((await sealedRows(t.server, v.id)).rows).toEqual([]);
    expect((await t.server.db.pg.query("select * from user_recovery_codes where user_id = $1", [v.id])).rows).toEqual([]);
  });
});

describe("security.totp_required_for_admins", () => {
  const t = useServer({ "security.totp_required_for_admins": true }, clock);

  it("an admin's page session can only enrol until a second factor is enabled; others and basic auth are unaffected", async () => {
    const viewer = await t.api.user("plain-viewer", "Viewer");
    const orgAdmin = await t.api.user("org-admin", "Admin");
    const viewerSession = (await pageLogin(t.api, "plain-viewer", viewer.password)).session;
    expect((await t.api.get("/api/search", asSession(viewerSession))).status).toBe(200);
    expect((await t.api.get("/api/user/2fa", asSession(viewerSession))).body.enrolmentRequired).toBe(false);

    // the server admin too
    const adminSession = (await pageLogin(t.api, "admin", "admin")).session;
    const refused = await t.api.get("/api/users", asSession(adminSession));
    expect(refused.status).toBe(403);
    expect(refused.body.messageId).toBe("second-factor.enrolment-required");
    expect((await t.api.get("/api/users", { auth: ADMIN })).status).toBe(200);

    const { session } = await pageLogin(t.api, "org-admin", orgAdmin.password);
    expect(session).not.toBe("");
    expect((await t.api.get("/api/search", asSession(session))).status).toBe(403);
    expect((await t.api.get("/api/user", asSession(session))).status).toBe(200);
    expect((await t.api.get("/api/user/2fa", asSession(session))).body).toEqual({ enabled: false, recoveryCodesLeft: 0, enrolmentRequired: true });
    const enrol = await t.api.post("/api/user/2fa/enrol", { ...asSession(session), body: { password: orgAdmin.password } });
    const confirm = await t.api.post("/api/user/2fa/confirm", { ...asSession(session), body: { code: codeAt(enrol.body.secret, clock.now()) } });
    expect(confirm.status).toBe(200);
    expect((await t.api.get("/api/search", asSession(session))).status).toBe(200);
    expect((await t.api.get("/api/user/2fa", asSession(session))).body.enrolmentRequired).toBe(false);
  });
});

describe("security.totp_enabled: false", () => {
  const t = useServer({ "security.totp_enabled": false });

  it("refuses enrolment", async () => {
    const r = await t.api.post("/api/user/2fa/enrol", { auth: ADMIN, body: { password: "admin" } });
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/security\.totp_enabled/);
  });
});

describe("second factor: review mends", () => {
  const t = useServer({}, clock);

  it("parallel wrong codes cannot outrun the lock-out: at most the limit are checked, the rest are blocked", async () => {
    const v = await enrolled(t.api, "parallel-guesser");
    const { pending } = await pageLogin(t.api, "parallel-guesser", v.password);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => t.api.post("/login/2fa", { headers: { Cookie: `svc_login_2fa=${pending}` }, body: { code: String(100000 + i) } })),
    );
    const checked = answers.filter((a) => a.body?.messageId === "second-factor.invalid-code").length;
    const blocked = answers.filter((a) => a.body?.messageId === "login-attempt.blocked").length;
    expect(checked + blocked).toBe(40);
    expect(checked).toBeLessThanOrEqual(5);
  });

  it("turning a second factor on ends the user's other sessions; turning it off and an admin reset too", async () => {
    const u = await t.api.user("session-ender", "Viewer");
    const a = (await pageLogin(t.api, "session-ender", u.password)).session;
    const b = (await pageLogin(t.api, "session-ender", u.password)).session;
    const enrol = await t.api.post("/api/user/2fa/enrol", { ...asSession(b), body: { password: u.password } });
    clock.advance(STEP);
    const confirm = await t.api.post("/api/user/2fa/confirm", { ...asSession(b), body: { code: codeAt(enrol.body.secret, clock.now()) } });
    expect(confirm.status).toBe(200);
    expect((await t.api.get("/api/user", asSession(a))).status).toBe(401);
    expect((await t.api.get("/api/user", asSession(b))).status).toBe(200);
    // a third session, then an admin reset ends every one of them
    clock.advance(STEP);
    const { pending } = await pageLogin(t.api, "session-ender", u.password);
    const c = (await secondStep(t.api, pending, codeAt(enrol.body.secret, clock.now()))).session;
    expect((await t.api.get("/api/user", asSession(c))).status).toBe(200);
    expect((await t.api.delete(`/api/admin/users/${u.id}/2fa`, { auth: ADMIN })).status).toBe(200);
    expect((await t.api.get("/api/user", asSession(b))).status).toBe(401);
    expect((await t.api.get("/api/user", asSession(c))).status).toBe(401);
  });

  it("an enrol racing a confirm never leaves a confirmed factor off, nor turns on a secret the user did not see", async () => {
    for (let round = 0; round < 5; round++) {
      const u = await t.api.user(`racer-${round}`, "Viewer");
      const s = (await pageLogin(t.api, `racer-${round}`, u.password)).session;
      const first = await t.api.post("/api/user/2fa/enrol", { ...asSession(s), body: { password: u.password } });
      clock.advance(STEP);
      const [confirm] = await Promise.all([
        t.api.post("/api/user/2fa/confirm", { ...asSession(s), body: { code: codeAt(first.body.secret, clock.now()) } }),
        t.api.post("/api/user/2fa/enrol", { ...asSession(s), body: { password: u.password } }),
      ]);
      const status = (await t.api.get("/api/user/2fa", asSession(s))).body;
      if (confirm.status === 200) expect(status.enabled).toBe(true);
      else expect([409, 400]).toContain(confirm.status);
    }
  });
});

describe("security.totp_required_for_admins with security.totp_enabled off", () => {
  it("is refused at start: administrators could never enrol", async () => {
    const { loadConfig } = await import("../../../../src/config/load.ts");
    expect(() => loadConfig({ flags: { "storage.in_memory": true, "security.totp_required_for_admins": true, "security.totp_enabled": false } })).toThrow(/security\.totp_required_for_admins/);
  });
});
