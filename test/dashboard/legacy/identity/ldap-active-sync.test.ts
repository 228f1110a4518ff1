// LDAP under load and over time, against a real OpenLDAP (Debian's slapd):
// - the bound on directory conversations: a flood of sign-ins with unknown
//   user names holds at most auth.ldap.max_concurrent_operations connections,
//   at most auth.ldap.max_queued_operations wait, the rest are answered 503 at
//   once (not counted towards anyone's lock-out); local users are not held up;
//   failed LDAP sign-ins lock a name out like local ones, without asking the
//   directory again. The directory is made slow by a TCP proxy in front of
//   slapd that holds new connections until told.
// - the active sync: a page session of a user removed from the directory (or
//   from every mapped group) ends at the next sync, roles follow the groups
//   meanwhile, and a sync while slapd is stopped changes nothing.
// - what the security review of the sync found (a directory of its own): a
//   search base that does not exist, or every user's entry removed, disables
//   nobody (the run changes nothing and says so); with search_filter
//   "(mail=%s)" (users sign in with their email) the sync finds users by their
//   login; one user the database refuses is logged and the run goes on.
// Skipped, saying so, where slapd is not installed (.ci/run installs it).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, basic, type Reply } from "../../../helpers/api.ts";
import { eventually } from "../../../helpers/eventually.ts";
import { tooManyToDisable } from "../../../../src/apps/dashboard/core/identity/ldap.ts";
import { dnOf, group, PEOPLE, personIn, SEED, serverBlock, setBindPasswordEnv } from "../../../helpers/ldap-directory.ts";
import { useServer } from "../../../helpers/server.ts";
import { LDAP_TOOLS, SLAPD, SLAPD_SKIPPED, startSlapd, SUFFIX, type Slapd } from "../../../helpers/slapd.ts";

const AVAILABLE = SLAPD !== undefined && LDAP_TOOLS;
if (!AVAILABLE) console.warn(`test/dashboard/legacy/identity/ldap-active-sync.test.ts ${SLAPD_SKIPPED}`);

/** a TCP proxy to a port that, while holding, accepts connections and passes nothing on until released */
function holdingProxy(target: () => number) {
  let holding = false;
  let accepted = 0;
  const held: Socket[] = [];
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on("error", () => s.destroy());
    s.on("close", () => sockets.delete(s));
  };
  const pipe = (client: Socket) => {
    const upstream = connect(target(), "127.0.0.1");
    track(upstream);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    // pipe() resumes the paused client: what it sent while held goes on now
    client.pipe(upstream);
    upstream.pipe(client);
  };
  const server = createServer((client) => {
    accepted++;
    track(client);
    if (!holding) return pipe(client);
    client.pause();
    held.push(client);
  });
  return {
    listen: () => new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))),
    hold: () => void (holding = true),
    release() {
      holding = false;
      for (const c of held.splice(0)) if (!c.destroyed) pipe(c);
    },
    /** connections held now */
    held: () => held.filter((c) => !c.destroyed).length,
    /** connections accepted so far */
    accepted: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(!AVAILABLE)(`LDAP load and active sync against OpenLDAP${AVAILABLE ? "" : ` (${SLAPD_SKIPPED})`}`, () => {
  const dir = AVAILABLE ? mkdtempSync(join(tmpdir(), "outpost-ldap-sync-")) : "";
  const proxiedToml = join(dir, "ldap-proxied.toml");
  const directToml = join(dir, "ldap-direct.toml");
  let slapd: Slapd | undefined;
  const proxy = holdingProxy(() => slapd!.ldapPort);
  setBindPasswordEnv();

  beforeAll(async () => {
    slapd = await startSlapd(dir);
    await slapd.apply(SEED);
    const proxyPort = await proxy.listen();
    // a long timeout: connections held by the proxy wait for the test, not for a timer
    writeFileSync(proxiedToml, serverBlock({ port: proxyPort, tls: "none", timeout: 120 }));
    writeFileSync(directToml, serverBlock({ port: slapd.ldapPort, tls: "none" }));
  });
  afterAll(async () => {
    await proxy.close();
    await slapd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe("a slow directory: 2 conversations at once, 2 waiting", () => {
    const t = useServer({
      "auth.ldap.enabled": true,
      "auth.ldap.config_file": proxiedToml,
      "auth.ldap.active_sync_enabled": false,
      "auth.ldap.max_concurrent_operations": 2,
      "auth.ldap.max_queued_operations": 2,
    });

    /** sends the requests at once; the replies fill the array as they come */
    const flood = (auths: string[]) => {
      const replies: Reply[] = [];
      const all = Promise.all(auths.map((auth) => t.api.get("/api/user", { auth }).then((r) => (replies.push(r), r))));
      return { replies, all };
    };

    it("a flood of unknown user names: 2 held connections, 2 waiting, the rest 503 at once; the local admin is not held up", async () => {
      const before = proxy.accepted();
      proxy.hold();
      const { replies, all } = flood(Array.from({ length: 7 }, (_, i) => basic(`nobody-${i}`, "guess")));
      // nothing can finish while the proxy holds: the first answers are the refused ones
      await eventually(() => replies.length, (n) => expect(n).toBe(3));
      for (const r of replies) {
        expect(r.status).toBe(503);
        expect(r.body).toMatchObject({ message: "LDAP sign-in is busy: too many sign-ins are waiting for the directory, try again shortly", messageId: "ldap.busy" });
        expect(r.headers.get("retry-after")).toBe("1");
      }
      await eventually(() => proxy.held(), (n) => expect(n).toBe(2));
      expect((await t.api.get("/api/user", { auth: ADMIN })).status).toBe(200);
      proxy.release();
      const done = await all;
      expect(done.map((r) => r.status).sort()).toEqual([401, 401, 401, 401, 503, 503, 503]);
      // one connection per conversation, never more than the bound at once
      expect(proxy.accepted() - before).toBe(4);
    });

    it("a 503 counts as no failed sign-in: a user whose attempts were refused for load still signs in", async () => {
      proxy.hold();
      const { replies, all } = flood([
        ...Array.from({ length: 4 }, (_, i) => basic(`filler-${i}`, "guess")),
        ...Array.from({ length: 6 }, (_, i) => basic("bob", `wrong-${i}`)),
      ]);
      await eventually(() => replies.length, (n) => expect(n).toBe(6));
      expect(replies.map((r) => r.status)).toEqual([503, 503, 503, 503, 503, 503]);
      proxy.release();
      await all;
      // more than security.login_max_attempts (5) refusals, none counted: not locked
      const bob = await t.api.get("/api/user", { auth: basic("bob", "bob-pw") });
      expect(bob.status, JSON.stringify(bob.body)).toBe(200);
    });

    it("failed LDAP sign-ins lock the name out like local ones: the 6th attempt is refused without asking the directory", async () => {
      for (let i = 0; i < 5; i++) {
        const r = await t.api.get("/api/user", { auth: basic("erin", `wrong-${i}`) });
        expect(r.status).toBe(401);
        expect(r.body.messageId).toBe("password-auth.failed");
      }
      const before = proxy.accepted();
      const locked = await t.api.get("/api/user", { auth: basic("erin", "erin-pw") });
      expect(locked.status).toBe(401);
      expect(locked.body).toMatchObject({ message: "Invalid username or password", messageId: "login-attempt.blocked" });
      expect(proxy.accepted()).toBe(before);
    });
  });

  describe("active sync every second", () => {
    const t = useServer({ "auth.ldap.enabled": true, "auth.ldap.config_file": directToml, "auth.ldap.sync_cron": "* * * * * *" });

    /** a page session (the session cookie) of a directory user */
    const signIn = async (user: string) => {
      const r = await fetch(`${t.server.urls.dashboard}/login`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ user, password: `${user}-pw` }) });
      expect(r.status).toBe(200);
      return { Cookie: r.headers.get("set-cookie")!.split(";")[0]! };
    };
    const userOf = async (login: string) => (await t.api.get(`/api/users/lookup?loginOrEmail=${login}`, { auth: ADMIN })).body;
    const sessionsOf = async (id: number) => (await t.server.db.pg.query("select 1 from sessions where user_id = $1", [id])).rows.length;

    it("roles follow the groups during a page session; a user removed from the directory is disabled and its session ends", async () => {
      const cookie = await signIn("bob");
      expect((await t.api.get("/api/user/orgs", { headers: cookie })).body).toEqual([expect.objectContaining({ orgId: 1, role: "Editor" })]);
      await slapd!.apply(`dn: ${group("editors")}\nchangetype: modify\ndelete: member\nmember: ${dnOf("bob")}\n\ndn: ${group("viewers")}\nchangetype: modify\nadd: member\nmember: ${dnOf("bob")}\n`, true);
      await eventually(() => t.api.get("/api/user/orgs", { headers: cookie }), (r) => expect(r.body).toEqual([expect.objectContaining({ orgId: 1, role: "Viewer" })]));

      await slapd!.remove(dnOf("bob"));
      await eventually(() => t.api.get("/api/user", { headers: cookie }), (r) => expect(r.status).toBe(401));
      const bob = await userOf("bob");
      expect(bob.isDisabled).toBe(true);
      expect(await sessionsOf(bob.id)).toBe(0);
      expect(t.server.logs.some((l) => String(l.msg).includes("LDAP active sync: user not found in LDAP: disabled, sessions ended") && l.login === "bob")).toBe(true);
      // the local admin is the directory's business in no way
      expect((await t.api.get("/api/user", { auth: ADMIN })).status).toBe(200);
    });

    it("a user taken out of every mapped group is disabled and its session ends", async () => {
      const cookie = await signIn("erin");
      expect((await t.api.get("/api/user", { headers: cookie })).status).toBe(200);
      await slapd!.apply(`dn: ${group("viewers")}\nchangetype: modify\ndelete: member\nmember: ${dnOf("erin")}\n`, true);
      await eventually(() => t.api.get("/api/user", { headers: cookie }), (r) => expect(r.status).toBe(401));
      expect((await userOf("erin")).isDisabled).toBe(true);
    });

    it("a sync while slapd is stopped changes nothing: the session goes on, the user stays enabled with its role", async () => {
      const cookie = await signIn("alice");
      const alice = await userOf("alice");
      const before = t.server.logs.length;
      await slapd!.stop();
      await eventually(
        () => t.server.logs.slice(before),
        (lines) => expect(lines.some((l) => String(l.msg).startsWith("LDAP active sync stopped: no LDAP server could be reached"))).toBe(true),
      );
      expect((await t.api.get("/api/user", { headers: cookie })).status).toBe(200);
      expect((await userOf("alice")).isDisabled).toBe(false);
      expect((await t.api.get(`/api/users/${alice.id}/orgs`, { auth: ADMIN })).body).toEqual([expect.objectContaining({ orgId: 1, role: "Admin" })]);
      expect(await sessionsOf(alice.id)).toBe(1);
      expect(t.server.logs.slice(before).some((l) => String(l.msg).includes("disabled"))).toBe(false);
    });
  });
});

describe("the active sync's limit on disabling (tooManyToDisable)", () => {
  it("every user checked (at least 2), or more than half of more than 10, is too many; one user alone, or half, is not", () => {
    expect(tooManyToDisable(1, 1)).toBe(false);
    expect(tooManyToDisable(2, 2)).toBe(true);
    expect(tooManyToDisable(3, 2)).toBe(false);
    expect(tooManyToDisable(10, 9)).toBe(false);
    expect(tooManyToDisable(10, 10)).toBe(true);
    expect(tooManyToDisable(11, 5)).toBe(false);
    expect(tooManyToDisable(11, 6)).toBe(true);
    expect(tooManyToDisable(100, 50)).toBe(false);
    expect(tooManyToDisable(100, 51)).toBe(true);
    expect(tooManyToDisable(0, 0)).toBe(false);
    expect(tooManyToDisable(5, 0)).toBe(false);
  });
});

describe.skipIf(!AVAILABLE)(`the active sync's review mends against OpenLDAP${AVAILABLE ? "" : ` (${SLAPD_SKIPPED})`}`, () => {
  const dir = AVAILABLE ? mkdtempSync(join(tmpdir(), "outpost-ldap-sync-mends-")) : "";
  const mailToml = join(dir, "ldap-mail.toml");
  const plainToml = join(dir, "ldap.toml");
  const guardToml = join(dir, "ldap-guard.toml");
  let slapd: Slapd | undefined;
  setBindPasswordEnv();

  beforeAll(async () => {
    slapd = await startSlapd(dir);
    await slapd.apply(SEED);
    await slapd.apply([personIn("frank", ["viewers"]), personIn("gina", ["viewers"]), personIn("hank", ["editors"])].join("\n"));
    writeFileSync(mailToml, serverBlock({ port: slapd.ldapPort, tls: "none", searchFilter: "(mail=%s)" }));
    writeFileSync(plainToml, serverBlock({ port: slapd.ldapPort, tls: "none" }));
    writeFileSync(guardToml, serverBlock({ port: slapd.ldapPort, tls: "none" }));
  });
  afterAll(async () => {
    await slapd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  type T = ReturnType<typeof useServer>;
  /** a page session (the session cookie) */
  const signIn = async (t: T, user: string, password = `${user}-pw`) => {
    const r = await fetch(`${t.server.urls.dashboard}/login`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ user, password }) });
    expect(r.status).toBe(200);
    return { Cookie: r.headers.get("set-cookie")!.split(";")[0]! };
  };
  const userOf = async (t: T, login: string) => (await t.api.get(`/api/users/lookup?loginOrEmail=${encodeURIComponent(login)}`, { auth: ADMIN })).body;
  /** the reports of the sync runs that ended after log line `from` */
  const runsAfter = (t: T, from: number) => t.server.logs.slice(from).filter((l) => l.msg === "LDAP active sync done");
  /** the report of a run that started after log line `from` (the second to end after it) */
  const nextRun = async (t: T, from: number) => {
    await eventually(() => runsAfter(t, from), (runs) => expect(runs.length).toBeGreaterThanOrEqual(2));
    return runsAfter(t, from)[1]!;
  };
  const reload = async (t: T) => expect((await t.api.post("/api/admin/ldap/reload", { auth: ADMIN })).status).toBe(200);

  describe('search_filter "(mail=%s)": users sign in with their email, their login is the uid', () => {
    const t = useServer({ "auth.ldap.enabled": true, "auth.ldap.config_file": mailToml, "auth.ldap.sync_cron": "* * * * * *" });

    it("the sync finds the user by its login, not by what it typed: it stays enabled; removed from the directory, it is disabled", async () => {
      const cookie = await signIn(t, "erin@example.org", "erin-pw");
      const erin = await userOf(t, "erin");
      expect(erin).toMatchObject({ login: "erin", email: "erin@example.org", isDisabled: false });
      const run = await nextRun(t, t.server.logs.length);
      expect(run).toMatchObject({ checked: 1, disabled: 0 });
      expect((await userOf(t, "erin")).isDisabled).toBe(false);
      expect((await t.api.get("/api/user", { headers: cookie })).status).toBe(200);
      // the debug API's sync of the user finds it the same way
      expect((await t.api.post(`/api/admin/ldap/sync/${erin.id}`, { auth: ADMIN })).body).toEqual({ message: "User synced successfully" });
      // typing the login at sign-in searches it as a mail and finds nobody: refused, and nobody disabled
      expect((await t.api.get("/api/user", { auth: basic("erin", "a-guess") })).status).toBe(401);
      expect((await userOf(t, "erin")).isDisabled).toBe(false);
      expect((await t.api.get("/api/user", { headers: cookie })).status).toBe(200);

      await slapd!.remove(dnOf("erin"));
      await eventually(() => t.api.get("/api/user", { headers: cookie }), (r) => expect(r.status).toBe(401));
      expect((await userOf(t, "erin")).isDisabled).toBe(true);
    });
  });

  describe("one user whose directory values the users table cannot hold", () => {
    const t = useServer({ "auth.ldap.enabled": true, "auth.ldap.config_file": plainToml, "auth.ldap.sync_cron": "* * * * * *" });

    it("keeps its login and email (logged) while the run goes on with the other users; its sign-in is refused, not a 500", async () => {
      // alice first: looked up and updated before bob
      await signIn(t, "alice");
      const bob = await signIn(t, "bob");
      expect((await t.api.get("/api/user/orgs", { headers: bob })).body).toEqual([expect.objectContaining({ orgId: 1, role: "Editor" })]);
      // alice's mail becomes longer than the email column holds; bob moves to the viewers
      const long = `${randomBytes(3000).toString("base64")}@example.org`;
      await slapd!.apply(`dn: ${dnOf("alice")}\nchangetype: modify\nreplace: mail\nmail: ${long}\n`, true);
      await slapd!.apply(`dn: ${group("editors")}\nchangetype: modify\ndelete: member\nmember: ${dnOf("bob")}\n\ndn: ${group("viewers")}\nchangetype: modify\nadd: member\nmember: ${dnOf("bob")}\n`, true);
      await eventually(() => t.api.get("/api/user/orgs", { headers: bob }), (r) => expect(r.body).toEqual([expect.objectContaining({ orgId: 1, role: "Viewer" })]));
      const kept = t.server.logs.find((l) => String(l.msg).startsWith("LDAP sync: the directory's login or email is too long or holds control characters"));
      expect(kept, JSON.stringify(t.server.logs.filter((l) => String(l.msg).startsWith("LDAP")).slice(-5))).toMatchObject({ level: "warn", login: "alice" });
      expect((await userOf(t, "alice")).email).toBe("alice@example.org");
      expect(t.server.logs.some((l) => l.msg === "LDAP active sync failed")).toBe(false);
      // a first sign-in with such values (dave, not signed in before, so not remembered): refused, the reason logged
      const contractors = `ou=contractors,ou=staff,${PEOPLE}`;
      await slapd!.apply(`dn: ${dnOf("dave", contractors)}\nchangetype: modify\nreplace: mail\nmail: ${long}\n`, true);
      const r = await t.api.get("/api/user", { headers: { Authorization: `Basic ${Buffer.from("dave:dave-pw").toString("base64")}` } });
      expect(r.status).toBe(401);
      expect(t.server.logs.some((l) => String(l.msg).startsWith("LDAP sign-in refused: the directory's login or email is too long"))).toBe(true);
    });
  });

  describe("a directory that finds nobody disables nobody", () => {
    const t = useServer({ "auth.ldap.enabled": true, "auth.ldap.config_file": guardToml, "auth.ldap.sync_cron": "* * * * * *" });
    const users = ["frank", "gina", "hank"];
    const cookies: Array<{ Cookie: string }> = [];
    /** every user enabled, every page session alive */
    const nobodyDisabled = async () => {
      for (const login of users) expect((await userOf(t, login)).isDisabled, login).toBe(false);
      for (const cookie of cookies) expect((await t.api.get("/api/user", { headers: cookie })).status).toBe(200);
    };

    it("a search base that does not exist (noSuchObject) is no answer: nobody is disabled, by the sync or the debug API's sync", async () => {
      for (const login of users) cookies.push(await signIn(t, login));
      expect(await nextRun(t, t.server.logs.length)).toMatchObject({ checked: 3, disabled: 0 });

      writeFileSync(guardToml, serverBlock({ port: slapd!.ldapPort, tls: "none", baseDns: [`ou=gone,${SUFFIX}`] }));
      await reload(t);
      const from = t.server.logs.length;
      const run = await nextRun(t, from);
      expect(run).toMatchObject({ checked: 0, unchanged: 3, disabled: 0, withheld: false });
      await nobodyDisabled();
      const warned = t.server.logs.slice(from).find((l) => String(l.msg).startsWith("LDAP active sync: some LDAP servers could not answer"));
      expect(JSON.stringify(warned)).toContain(`search base \\"ou=gone,${SUFFIX}\\" does not exist or cannot be read by the bind account (noSuchObject)`);
      // the lookups had no answer: no "would disable too many" either
      expect(t.server.logs.slice(from).some((l) => String(l.msg).startsWith("LDAP active sync changed nothing"))).toBe(false);
      const frank = await userOf(t, "frank");
      const sync = await t.api.post(`/api/admin/ldap/sync/${frank.id}`, { auth: ADMIN });
      expect(sync.status).toBe(400);
      expect(sync.body.message).toBe("Something went wrong while finding the user in LDAP");
      await nobodyDisabled();

      writeFileSync(guardToml, serverBlock({ port: slapd!.ldapPort, tls: "none" }));
      await reload(t);
      expect(await nextRun(t, t.server.logs.length)).toMatchObject({ checked: 3, disabled: 0 });
    });

    it("every user's entry removed: the run changes nothing at all, and says so", async () => {
      await slapd!.remove(...users.map((u) => dnOf(u)));
      const from = t.server.logs.length;
      const run = await nextRun(t, from);
      expect(run).toMatchObject({ checked: 3, disabled: 0, withheld: true });
      const warned = t.server.logs.slice(from).find((l) => String(l.msg).startsWith("LDAP active sync changed nothing: it would have disabled too many"));
      expect(warned).toMatchObject({ level: "warn", checked: 3, wouldDisable: 3 });
      await nobodyDisabled();
    });
  });
});
