// LDAP sign-in against a real OpenLDAP (Debian's slapd, started here with a
// seeded directory: users in nested OUs, groupOfNames groups, the memberof
// overlay): basic auth and POST /login, roles from the group mappings and their
// change at the next sign-in, the server admin flag, a removed user, a wrong
// password, a user outside every mapping, filter injection, allow_sign_up off,
// StartTLS and LDAPS with the certificates of `outpost certs`, an unreachable
// server (logged; the local admin still signs in), team sync, the debug API,
// and a directory that requires a client certificate (client_cert, client_key).
// Skipped, saying so, where slapd is not installed (.ci/run installs it).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, basic } from "../../../helpers/api.ts";
import { freePort } from "../../../helpers/browser.ts";
import { testClock, useServer } from "../../../helpers/server.ts";
import { dnOf, group, PEOPLE, personIn, SEED, serverBlock } from "../../../helpers/ldap-directory.ts";
import { LDAP_TOOLS, ROOT_PW, SLAPD, SLAPD_SKIPPED, startSlapd, type Slapd } from "../../../helpers/slapd.ts";

const AVAILABLE = SLAPD !== undefined && LDAP_TOOLS;
if (!AVAILABLE) console.warn(`test/dashboard/legacy/identity/ldap.test.ts ${SLAPD_SKIPPED}`);

describe.skipIf(!AVAILABLE)(`LDAP sign-in against OpenLDAP${AVAILABLE ? "" : ` (${SLAPD_SKIPPED})`}`, () => {
  const dir = AVAILABLE ? mkdtempSync(join(tmpdir(), "outpost-ldap-")) : "";
  const ldapToml = join(dir, "ldap.toml");
  const strictToml = join(dir, "ldap-strict.toml");
  let slapd: Slapd | undefined;
  let deadPort = 0;
  process.env.OUTPOST_TEST_LDAP_BIND_PW = ROOT_PW;

  // first: slapd and the files the servers read at start
  beforeAll(async () => {
    slapd = await startSlapd(dir);
    await slapd.apply(SEED);
    deadPort = await freePort(); // nothing listens there
    // an unreachable server first (logged, skipped), then the real one over StartTLS with the CA of `outpost certs`
    writeFileSync(ldapToml, serverBlock({ port: deadPort, tls: "none", timeout: 2 }) + serverBlock({ port: slapd.ldapPort, tls: "starttls", ca: join(slapd.certDir, "ca.pem") }));
    // LDAPS, no sign-up, groups found by group_search_filter rather than memberOf
    writeFileSync(strictToml, serverBlock({ port: slapd.ldapsPort, tls: "ldaps", ca: join(slapd.certDir, "ca.pem"), groupSearch: true }));
  });
  afterAll(async () => {
    await slapd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe("sign-up allowed, StartTLS, an unreachable server listed first", () => {
    const clock = testClock();
    const t = useServer({ "server.edition": "enterprise", "auth.ldap.enabled": true, "auth.ldap.config_file": ldapToml }, clock);
    /** past the verified-credentials cache, so the next sign-in asks the directory */
    const later = () => clock.advance(61_000);
    const userOf = async (login: string) => {
      const r = await t.api.get(`/api/users/lookup?loginOrEmail=${login}`, { auth: ADMIN });
      return r.body;
    };

    it("basic auth: a directory user is created with the mapped role and server admin flag, marked LDAP", async () => {
      const me = await t.api.get("/api/user", { auth: basic("alice", "alice-pw") });
      expect(me.status, JSON.stringify(me.body)).toBe(200);
      expect(me.body).toMatchObject({ login: "alice", email: "alice@example.org", name: "Alice Admin", isSvcAdmin: true, isExternal: true, authLabels: ["LDAP"] });
      const members = await t.api.get("/api/org/users", { auth: ADMIN });
      expect(members.body.find((m: { login: string }) => m.login === "alice")).toMatchObject({ role: "Admin", authLabels: ["LDAP"] });
      // the unreachable server was logged, clearly, and skipped
      expect(t.server.logs.some((l) => String(l.msg).includes("LDAP server unavailable") && String(l.server).includes(`127.0.0.1:${deadPort}`))).toBe(true);
    });

    it("an unreachable server is not waited for again for 30 s: the next uncached sign-in skips it, and says so in the log", async () => {
      later();
      expect((await t.api.get("/api/user", { auth: basic("alice", "alice-pw") })).status).toBe(200);
      expect(t.server.logs.some((l) => String(l.error ?? "").includes("did not answer in the last 30 s"))).toBe(true);
    });

    it("POST /login: an Editor from the editors group (nested OU users too); the password is never stored", async () => {
      const r = await fetch(`${t.server.urls.dashboard}/login`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ user: "bob", password: "bob-pw" }) });
      expect(r.status).toBe(200);
      const cookie = r.headers.get("set-cookie")!.split(";")[0]!;
      const org = await t.api.get("/api/user/orgs", { headers: { Cookie: cookie } });
      expect(org.body).toEqual([expect.objectContaining({ orgId: 1, role: "Editor" })]);
      const dave = await t.api.get("/api/user", { auth: basic("dave", "dave-pw") });
      expect(dave.status).toBe(200);
      const row = await t.server.db.pg.query<{ password_hash: string | null; auth_module: string }>("select password_hash, auth_module from users where login = 'bob'");
      expect(row.rows[0]).toEqual({ password_hash: null, auth_module: "ldap" });
    });

    it("a wrong or empty password, a user in no mapped group, and filter injection are refused with 401", async () => {
      expect((await t.api.get("/api/user", { auth: basic("alice", "wrong") })).status).toBe(401);
      expect((await t.api.get("/api/user", { auth: basic("alice", "") })).status).toBe(401);
      const carol = await t.api.get("/api/user", { auth: basic("carol", "carol-pw") });
      expect(carol.status).toBe(401);
      expect(carol.body.message).toBe("Invalid username or password");
      expect(t.server.logs.some((l) => String(l.msg).includes("does not belong in any of the specified LDAP groups"))).toBe(true);
      for (const name of ["*", "*)(uid=*", "alice)(|(uid=*", "al*"]) {
        const r = await t.api.get("/api/user", { auth: basic(name, "alice-pw") });
        expect(r.status, name).toBe(401);
      }
      expect((await userOf("carol")).message).toBe("user not found");
    });

    it("verified credentials are reused for 60 s (no directory round trip), then asked again: a role change applies", async () => {
      await slapd!.apply(`dn: ${group("editors")}\nchangetype: modify\ndelete: member\nmember: ${dnOf("bob")}\n\ndn: ${group("viewers")}\nchangetype: modify\nadd: member\nmember: ${dnOf("bob")}\n`, true);
      expect((await t.api.get("/api/user", { auth: basic("bob", "bob-pw") })).status).toBe(200);
      const bob = await userOf("bob");
      const before = await t.api.get(`/api/users/${bob.id}/orgs`, { auth: ADMIN });
      expect(before.body[0].role).toBe("Editor");
      later();
      expect((await t.api.get("/api/user", { auth: basic("bob", "bob-pw") })).status).toBe(200);
      const after = await t.api.get(`/api/users/${bob.id}/orgs`, { auth: ADMIN });
      expect(after.body[0].role).toBe("Viewer");
    });

    it("a user removed from the directory is refused at the next sign-in, and disabled once every server has answered", async () => {
      later();
      expect((await t.api.get("/api/user", { auth: basic("dave", "dave-pw") })).status).toBe(200);
      await slapd!.remove(dnOf("dave", `ou=contractors,ou=staff,${PEOPLE}`));
      later();
      // the unreachable server might hold dave: refused, not disabled
      expect((await t.api.get("/api/user", { auth: basic("dave", "dave-pw") })).status).toBe(401);
      expect((await userOf("dave")).isDisabled).toBe(false);
      const original = readFileSync(ldapToml, "utf8");
      writeFileSync(ldapToml, serverBlock({ port: slapd!.ldapPort, tls: "starttls", ca: join(slapd!.certDir, "ca.pem") }));
      expect((await t.api.post("/api/admin/ldap/reload", { auth: ADMIN })).status).toBe(200);
      later();
      expect((await t.api.get("/api/user", { auth: basic("dave", "dave-pw") })).status).toBe(401);
      expect((await userOf("dave")).isDisabled).toBe(true);
      writeFileSync(ldapToml, original);
      expect((await t.api.post("/api/admin/ldap/reload", { auth: ADMIN })).status).toBe(200);
    });

    it("review mends: an administrator's disable is not undone by a sign-in; an email as user name disables nobody; a directory entry with another account's mail takes nothing over", async () => {
      later();
      expect((await t.api.get("/api/user", { auth: basic("bob", "bob-pw") })).status).toBe(200);
      const bob = await userOf("bob");
      expect((await t.api.post(`/api/admin/users/${bob.id}/disable`, { auth: ADMIN })).status).toBe(200);
      later();
      expect((await t.api.get("/api/user", { auth: basic("bob", "bob-pw") })).status).toBe(401);
      expect((await userOf("bob")).isDisabled).toBe(true);
      expect((await t.api.post(`/api/admin/users/${bob.id}/enable`, { auth: ADMIN })).status).toBe(200);
      later();
      expect((await t.api.get("/api/user", { auth: basic("bob", "bob-pw") })).status).toBe(200);
      // the email is no login: a search for it finds nobody, and disables nobody
      later();
      expect((await t.api.get("/api/user", { auth: basic("bob@example.org", "anything") })).status).toBe(401);
      expect((await userOf("bob")).isDisabled).toBe(false);
      // a new entry whose mail is bob's: refused, bob keeps his account
      await slapd!.apply(`dn: ${dnOf("mallory")}\nchangetype: add\nobjectClass: inetOrgPerson\nuid: mallory\ncn: Mallory\nsn: M\nmail: bob@example.org\nuserPassword: mallory-pw\n\ndn: ${group("admins")}\nchangetype: modify\nadd: member\nmember: ${dnOf("mallory")}\n`, true);
      later();
      expect((await t.api.get("/api/user", { auth: basic("mallory", "mallory-pw") })).status).toBe(401);
      expect((await userOf("bob")).login).toBe("bob");
    });

    it("a login or email the directory gives that is another user's email or login: the sign-in is refused; a sync keeps the user's own", async () => {
      // a user without a password (so "frank" is asked of the directory, not checked locally) whose
      // email is a directory user's login, and a local user whose login is a directory user's email
      const zed = await t.api.post("/api/admin/users", { auth: ADMIN, body: { login: "zed", email: "frank", password: "zed-local-pw" } });
      expect(zed.status).toBe(200);
      await t.server.db.pg.query("update users set password_hash = null where login = 'zed'");
      // any identity write refreshes the read model
      expect((await t.api.put(`/api/users/${zed.body.id}`, { auth: ADMIN, body: { name: "Zed" } })).status).toBe(200);
      expect((await t.api.post("/api/admin/users", { auth: ADMIN, body: { login: "gina@example.org", email: "gina-local@example.net", password: "gina-local-pw" } })).status).toBe(200);
      await slapd!.apply([personIn("frank", ["viewers"]), personIn("gina", ["viewers"]), personIn("hank", ["viewers"])].join("\n"));
      const refusals = () => t.server.logs.filter((l) => l.msg === "LDAP sign-in refused: the login or email the directory gives is another user's login or email").length;
      const before = refusals();
      later();
      expect((await t.api.get("/api/user", { auth: basic("frank", "frank-pw") })).status).toBe(401);
      expect((await t.api.get("/api/user", { auth: basic("gina", "gina-pw") })).status).toBe(401);
      expect(refusals() - before).toBe(2);
      // "frank" is still zed's email alone, "gina@example.org" the local gina's login alone
      expect((await userOf("frank")).login).toBe("zed");
      expect((await userOf("gina@example.org")).email).toBe("gina-local@example.net");
      expect((await userOf("gina")).message).toBe("user not found");

      // an LDAP user whose email in the directory becomes another user's login: the sync updates
      // the rest and leaves its login and email as they were; a sign-in with it is refused
      expect((await t.api.get("/api/user", { auth: basic("hank", "hank-pw") })).status).toBe(200);
      const hank = await userOf("hank");
      await slapd!.apply(`dn: ${dnOf("hank")}\nchangetype: modify\nreplace: mail\nmail: zed\n-\nreplace: givenName\ngivenName: Henry\n`, true);
      const sync = await t.api.post(`/api/admin/ldap/sync/${hank.id}`, { auth: ADMIN });
      expect(sync.status).toBe(200);
      expect(sync.body.message).toBe("User synced, but the login or email LDAP gives is another user's: the user's login and email were left as they were");
      expect(await userOf("hank")).toMatchObject({ id: hank.id, login: "hank", email: "hank@example.org", name: "Henry Added" });
      expect((await userOf("zed")).login).toBe("zed");
      expect(t.server.logs.some((l) => String(l.msg).startsWith("LDAP sync: the login or email the directory gives is another user's") && l.login === "hank" && l.directoryEmail === "zed")).toBe(true);
      later();
      expect((await t.api.get("/api/user", { auth: basic("hank", "hank-pw") })).status).toBe(401);
      expect(refusals() - before).toBe(3);
      expect((await userOf("hank")).email).toBe("hank@example.org");
    });

    it("team sync: a team whose external group holds the user gains it (labelled LDAP), loses it when the group does; hand-added members stay", async () => {
      const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "Ops" } });
      const id = team.body.teamId as number;
      expect((await t.api.post(`/api/teams/${id}/groups`, { auth: ADMIN, body: { groupId: group("ops") } })).status).toBe(200);
      const bob = await userOf("bob");
      expect((await t.api.post(`/api/teams/${id}/members`, { auth: ADMIN, body: { userId: bob.id } })).status).toBe(200);
      later();
      expect((await t.api.get("/api/user", { auth: basic("alice", "alice-pw") })).status).toBe(200);
      let members = await t.api.get(`/api/teams/${id}/members`, { auth: ADMIN });
      expect(members.body.map((m: { login: string; labels: string[]; auth_module: string }) => [m.login, m.labels, m.auth_module])).toEqual([
        ["alice", ["LDAP"], "ldap"],
        ["bob", [], ""],
      ]);
      await slapd!.apply(`dn: ${group("ops")}\nchangetype: modify\nadd: member\nmember: ${dnOf("bob")}\n-\ndelete: member\nmember: ${dnOf("alice")}\n`, true);
      later();
      expect((await t.api.get("/api/user", { auth: basic("alice", "alice-pw") })).status).toBe(200);
      members = await t.api.get(`/api/teams/${id}/members`, { auth: ADMIN });
      expect(members.body.map((m: { login: string }) => m.login)).toEqual(["bob"]);
    });

    it("the debug API: status, a user's mapping, sync, reload (server admins only)", async () => {
      const status = await t.api.get("/api/admin/ldap/status", { auth: ADMIN });
      expect(status.status).toBe(200);
      expect(status.body).toEqual([
        expect.objectContaining({ host: "127.0.0.1", port: deadPort, available: false, error: expect.stringContaining("ECONNREFUSED") }),
        { host: "127.0.0.1", port: slapd!.ldapPort, available: true, error: "" },
      ]);
      const alice = await t.api.get("/api/admin/ldap/alice", { auth: ADMIN });
      expect(alice.status).toBe(200);
      expect(alice.body).toMatchObject({
        name: { cfgAttrValue: "givenName", ldapValue: "Alice" },
        surname: { cfgAttrValue: "sn", ldapValue: "Admin" },
        email: { cfgAttrValue: "mail", ldapValue: "alice@example.org" },
        login: { cfgAttrValue: "uid", ldapValue: "alice" },
        isGrafanaAdmin: true,
        isDisabled: false,
      });
      expect(alice.body.roles).toContainEqual({ orgId: 1, orgName: "Main Org.", orgRole: "Admin", groupDN: group("admins") });
      expect((await t.api.get("/api/admin/ldap/nobody", { auth: ADMIN })).status).toBe(404);
      expect((await t.api.get("/api/admin/ldap/*", { auth: ADMIN })).status).toBe(404);

      const bob = await userOf("bob");
      const sync = await t.api.post(`/api/admin/ldap/sync/${bob.id}`, { auth: ADMIN });
      expect(sync.status).toBe(200);
      expect(sync.body).toEqual({ message: "User synced successfully" });
      expect((await t.api.post("/api/admin/ldap/sync/1", { auth: ADMIN })).status).toBe(404);
      // bob is no server admin
      later();
      expect((await t.api.get("/api/admin/ldap/status", { auth: basic("bob", "bob-pw") })).status).toBe(403);

      expect((await t.api.post("/api/admin/ldap/reload", { auth: ADMIN })).body).toEqual({ message: "LDAP config reloaded" });
    });

    it("a reload to an unreachable directory: LDAP users are refused, the error is logged, the local admin still signs in; a bad file is refused naming the field", async () => {
      const original = serverBlock({ port: deadPort, tls: "none", timeout: 2 }) + serverBlock({ port: slapd!.ldapPort, tls: "starttls", ca: join(slapd!.certDir, "ca.pem") });
      writeFileSync(ldapToml, serverBlock({ port: deadPort, tls: "none", timeout: 2 }));
      expect((await t.api.post("/api/admin/ldap/reload", { auth: ADMIN })).status).toBe(200);
      const before = t.server.logs.length;
      expect((await t.api.get("/api/user", { auth: basic("bob", "bob-pw") })).status).toBe(401);
      expect(t.server.logs.slice(before).some((l) => l.level === "error" && String(l.msg).includes("LDAP server unavailable"))).toBe(true);
      expect((await t.api.get("/api/user", { auth: ADMIN })).status).toBe(200);
      // the bind password never reaches the log
      expect(JSON.stringify(t.server.logs)).not.toContain(ROOT_PW);

      writeFileSync(ldapToml, original.replace('org_role = "Editor"', 'org_role = "Boss"'));
      const bad = await t.api.post("/api/admin/ldap/reload", { auth: ADMIN });
      expect(bad.status).toBe(500);
      expect(bad.body.message).toContain("servers[0].group_mappings[1].org_role: must be Admin, Editor, Viewer or None");
      writeFileSync(ldapToml, original);
      expect((await t.api.post("/api/admin/ldap/reload", { auth: ADMIN })).status).toBe(200);
      expect((await t.api.get("/api/user", { auth: basic("bob", "bob-pw") })).status).toBe(200);
    });
  });

  describe("LDAPS, sign-up off", () => {
    const t = useServer({ "auth.ldap.enabled": true, "auth.ldap.config_file": strictToml, "auth.ldap.allow_sign_up": false });

    it("a directory user unknown here is refused (logged); a user made beforehand signs in over LDAPS", async () => {
      const erin = await t.api.get("/api/user", { auth: basic("erin", "erin-pw") });
      expect(erin.status).toBe(401);
      expect(t.server.logs.some((l) => String(l.msg).includes("allow_sign_up"))).toBe(true);
      // an existing user without a password (made by an earlier LDAP sign-in, or by hand) is linked
      const made = await t.api.post("/api/admin/users", { auth: ADMIN, body: { login: "erin", email: "erin@example.org", password: "local-pw-unused" } });
      expect(made.status).toBe(200);
      await t.server.db.pg.query("update users set password_hash = null where login = 'erin'");
      // any identity write refreshes the read model
      expect((await t.api.put(`/api/users/${made.body.id}`, { auth: ADMIN, body: { name: "Erin" } })).status).toBe(200);
      const again = await t.api.get("/api/user", { auth: basic("erin", "erin-pw") });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body).toMatchObject({ login: "erin", authLabels: ["LDAP"] });
      const status = await t.api.get("/api/admin/ldap/status", { auth: ADMIN });
      expect(status.body).toEqual([{ host: "127.0.0.1", port: slapd!.ldapsPort, available: true, error: "" }]);
      const mapping = await t.api.get("/api/admin/ldap/erin", { auth: ADMIN });
      expect(mapping.body.roles).toEqual([{ orgId: 1, orgName: "Main Org.", orgRole: "Viewer", groupDN: group("viewers") }]);
    });
  });
});

describe.skipIf(!AVAILABLE)("a directory that requires a client certificate (TLSVerifyClient demand)", () => {
  const dir = AVAILABLE ? mkdtempSync(join(tmpdir(), "outpost-ldap-mtls-")) : "";
  const withCert = join(dir, "ldap-with-cert.toml");
  const withoutCert = join(dir, "ldap-without-cert.toml");
  let slapd: Slapd | undefined;
  process.env.OUTPOST_TEST_LDAP_BIND_PW = ROOT_PW;

  beforeAll(async () => {
    // its own slapd: every TLS client must show a certificate of the CA `outpost certs` made
    slapd = await startSlapd(dir, { requireClientCert: true });
    await slapd.apply(SEED);
    const ca = join(slapd.certDir, "ca.pem");
    // LDAPS and StartTLS, each with the client certificate `outpost certs` made for it
    const cert = { cert: slapd.clientCert, key: slapd.clientKey };
    writeFileSync(withCert, serverBlock({ port: slapd.ldapsPort, tls: "ldaps", ca, clientCert: cert }) + serverBlock({ port: slapd.ldapPort, tls: "starttls", ca, clientCert: cert }));
    writeFileSync(withoutCert, serverBlock({ port: slapd.ldapsPort, tls: "ldaps", ca }));
  });
  afterAll(async () => {
    await slapd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe("client_cert and client_key set", () => {
    const t = useServer({ "auth.ldap.enabled": true, "auth.ldap.config_file": withCert, "auth.ldap.active_sync_enabled": false });

    it("a directory user signs in over LDAPS; both servers answer the status check", async () => {
      const me = await t.api.get("/api/user", { auth: basic("alice", "alice-pw") });
      expect(me.status, JSON.stringify(me.body)).toBe(200);
      expect(me.body).toMatchObject({ login: "alice", authLabels: ["LDAP"] });
      const status = await t.api.get("/api/admin/ldap/status", { auth: ADMIN });
      expect(status.body).toEqual([
        { host: "127.0.0.1", port: slapd!.ldapsPort, available: true, error: "" },
        { host: "127.0.0.1", port: slapd!.ldapPort, available: true, error: "" },
      ]);
      // the client key is never logged
      const key = readFileSync(slapd!.clientKey, "utf8").split("\n")[1]!;
      expect(JSON.stringify(t.server.logs)).not.toContain(key);
    });
  });

  describe("no client certificate", () => {
    const t = useServer({ "auth.ldap.enabled": true, "auth.ldap.config_file": withoutCert, "auth.ldap.active_sync_enabled": false });

    it("the sign-in is refused and the log says a client certificate may be required; the local admin still signs in", async () => {
      const before = t.server.logs.length;
      expect((await t.api.get("/api/user", { auth: basic("alice", "alice-pw") })).status).toBe(401);
      const logged = t.server.logs.slice(before).find((l) => l.level === "error" && String(l.msg).includes("LDAP server unavailable"));
      expect(logged, JSON.stringify(t.server.logs.slice(before))).toBeDefined();
      expect(String(logged!.error)).toContain("it may require a client certificate, client_cert and client_key in ldap.toml");
      expect((await t.api.get("/api/user", { auth: ADMIN })).status).toBe(200);
      const status = await t.api.get("/api/admin/ldap/status", { auth: ADMIN });
      expect(status.body).toEqual([{ host: "127.0.0.1", port: slapd!.ldapsPort, available: false, error: expect.stringContaining("client_cert and client_key") }]);
    });
  });
});

describe("LDAP off", () => {
  const t = useServer();
  it("the debug API answers 400 LDAP is not enabled", async () => {
    const r = await t.api.get("/api/admin/ldap/status", { auth: ADMIN });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe("LDAP is not enabled");
  });
});
