// Three Outpost nodes on one PostgreSQL database (issue 26): sign-in state
// that used to live in one process holds across them. Failed logins spread
// over the nodes lock the account at the same count as on one node, and the
// lock holds on every node (also for credentials a node had verified before);
// an OpenID Connect sign-in started on one node completes on another, once;
// a sign-in waiting for its second factor, begun on one node, completes on
// another and not again on the third; a node whose secret key opens none of
// the database's secrets is refused at start, saying what to do; the LDAP
// active sync, scheduled on every node, runs on one at a time.
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterLock, LDAP_SYNC_LOCK } from "../../src/apps/dashboard/cluster-locks.ts";
import type { LdapSyncReport } from "../../src/apps/dashboard/core/identity/ldap.ts";
import { scheduleLdapSync } from "../../src/apps/dashboard/core/identity/ldap-sync.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { ADMIN, basic, client } from "../helpers/api.ts";
import { pollUntil } from "../helpers/eventually.ts";
import { browse, CookieJar, signInAtProvider, startOidcProvider, type OidcProvider } from "../helpers/oidc.ts";
import { freePort } from "../helpers/ports.ts";
import { startPostgres, type PostgresServer } from "../helpers/postgres.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let pg: PostgresServer;
let provider: OidcProvider;
let url = "";
const nodes: TestServer[] = [];
const SECRET_KEY = "a-cluster-wide-secret-key-for-the-auth-test";
const MAX_ATTEMPTS = 4;
/** node A's address, which the provider sends the browser back to (a load balancer's, in a real cluster) */
let rootA = "";

beforeAll(async () => {
  pg = await startPostgres();
  url = await pg.createDatabase();
  const portA = await freePort();
  rootA = `http://127.0.0.1:${portA}`;
  provider = await startOidcProvider(await freePort(), [{
    client_id: "outpost", client_secret: "outpost-client-secret", redirect_uris: [`${rootA}/login/generic_oauth`], post_logout_redirect_uris: [],
  }], { olga: { email: "olga@example.com", name: "Olga" } });
  for (let i = 0; i < 3; i++) {
    nodes.push(await startTestServer({
      "storage.database_url": url,
      "security.secret_key": SECRET_KEY,
      "security.login_max_attempts": MAX_ATTEMPTS,
      "dashboard.root_url": `${rootA}/`,
      ...(i === 0 ? { "dashboard.http_port": portA } : {}),
      "auth.generic_oauth.enabled": true,
      "auth.generic_oauth.client_id": "outpost",
      "auth.generic_oauth.client_secret": "outpost-client-secret",
      "auth.generic_oauth.issuer": provider.issuer,
    }));
  }
}, 180_000);

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  await provider?.stop();
  await pg?.stop();
});

const base = (i: number) => nodes[i]!.urls.dashboard.replace(/\/$/, "");
const api = (i: number) => client(nodes[i]!.urls.dashboard);
const cookieOf = (name: string, setCookie: string | null) => new RegExp(`${name}=([^;]*)`).exec(setCookie ?? "")?.[1] ?? "";
/** a user made on A, once B and C know it */
async function userOnAll(login: string) {
  const u = await api(0).user(login, "Viewer");
  for (const i of [1, 2]) expect(await pollUntil(async () => (await api(i).get("/api/user", { auth: u.auth })).status === 200)).toBe(true);
  return u;
}

describe("sign-in state across three nodes on one PostgreSQL database", () => {
  it("failed logins spread over the nodes lock the account at the one-node limit, on every node", async () => {
    const u = await userOnAll("spread");
    // C verified the right password a moment ago (userOnAll): it answers it from its cache now, and its lock-out check from memory
    expect((await api(2).get("/api/user", { auth: u.auth })).status).toBe(200);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const r = await api(attempt % 2).get("/api/user", { auth: basic("spread", `wrong-${attempt}`) });
      expect(r.status).toBe(401);
      expect(r.body.messageId).toBe("password-auth.failed");
    }
    // the limit is reached, counted over A and B: the right password is refused everywhere
    for (const i of [0, 1]) {
      const r = await api(i).get("/api/user", { auth: u.auth });
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ message: "Invalid username or password", messageId: "login-attempt.blocked" });
    }
    // C, whose cache holds the right password, hears of the lock (a notification of the database)
    expect(await pollUntil(async () => (await api(2).get("/api/user", { auth: u.auth })).body?.messageId === "login-attempt.blocked")).toBe(true);
    // the page's sign-in is locked too, on every node
    for (const i of [0, 1, 2]) {
      expect((await api(i).post("/login", { body: { user: "spread", password: u.password } })).body.messageId).toBe("login-attempt.blocked");
    }
  });

  it("an OpenID Connect sign-in started on A completes on B, and its callback is good only once", async () => {
    const jar = new CookieJar();
    const callback = await signInAtProvider(jar, rootA, provider.issuer, "olga");
    // the provider's redirect back reaches B (behind a load balancer, the same address): the flow's cookie with it
    const flowId = jar.get(rootA, "svc_oauth_flow");
    expect(flowId).toBeTruthy();
    const onNode = (i: number) => {
      jar.set(base(i), "svc_oauth_flow", flowId!);
      return callback.replace(rootA, base(i));
    };
    const done = await browse(jar, onNode(1));
    expect(done.status).toBe(302);
    expect(done.headers.get("Location")).toBe("/");
    const session = jar.get(base(1), "svc_session");
    expect(session).toBeTruthy();
    const me = await api(1).get("/api/user", { headers: { Cookie: `svc_session=${session}` } });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe("olga@example.com");
    // the same callback again, on C: the flow was used
    const again = await browse(jar, onNode(2));
    expect(again.status).toBe(302);
    expect(new URL(again.headers.get("Location") ?? "", base(2)).searchParams.get("error")).toMatch(/expired or was already completed/);
  });

  it("a sign-in waiting for its second factor, begun on A, completes on B and not again on C", async () => {
    const u = await userOnAll("twofactor");
    const enrol = await api(0).post("/api/user/2fa/enrol", { auth: u.auth, body: { password: u.password } });
    expect(enrol.status).toBe(200);
    const code = new TOTP({ secret: Secret.fromBase32(enrol.body.secret as string) }).generate();
    const confirm = await api(0).post("/api/user/2fa/confirm", { auth: u.auth, body: { code } });
    expect(confirm.status).toBe(200);
    const [first, second] = confirm.body.recoveryCodes as string[];
    // the password on A: a pending sign-in, no session
    const login = await api(0).post("/login", { body: { user: "twofactor", password: u.password } });
    expect(login.status).toBe(401);
    expect(login.body.messageId).toBe("login.second-factor-required");
    const pending = cookieOf("svc_login_2fa", login.headers.get("set-cookie"));
    expect(pending).not.toBe("");
    const step = (i: number, code: string) => api(i).post("/login/2fa", { headers: { Cookie: `svc_login_2fa=${pending}` }, body: { code } });
    // the code on B (which must know of the second factor first: polled, a wrong code is refused as such)
    const done = await step(1, first!);
    expect(done.status).toBe(200);
    const session = cookieOf("svc_session", done.headers.get("set-cookie"));
    expect((await api(2).get("/api/user", { headers: { Cookie: `svc_session=${session}` } })).body.login).toBe("twofactor");
    // used: another good code with the same pending sign-in, on C, is refused
    const replay = await step(2, second!);
    expect(replay.status).toBe(401);
    expect(replay.body.messageId).toBe("login.second-factor-expired");
  });

  it("a node whose secret key opens none of the database's secrets is refused at start, saying what to do", async () => {
    const ds = await api(0).post("/api/datasources", {
      auth: ADMIN, body: { name: "sealed-ds", type: "prometheus", access: "proxy", url: "http://127.0.0.1:9", basicAuth: true, basicAuthUser: "u", secureJsonData: { basicAuthPassword: "p" } },
    });
    expect(ds.status).toBe(200);
    const started = await startTestServer({ "storage.database_url": url, "security.secret_key": "another-key-of-its-own" }).then(
      async (server) => {
        await server.stop();
        return undefined;
      },
      (err: unknown) => err as Error,
    );
    expect(started?.message).toMatch(/set security\.secret_key to the same value on every node, or copy .*secret\.key from a node that has it/);
    // the nodes with the cluster's key still open it
    expect((await api(2).get(`/api/datasources/uid/${ds.body.datasource.uid}`, { auth: ADMIN })).body.secureJsonFields).toMatchObject({ basicAuthPassword: true });
  });

  it("the LDAP active sync, scheduled on every node, runs on one node at a time; the others skip that time", async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    // a directory sync that takes a while: the next times come while it runs
    const ldap = {
      async syncAll(): Promise<LdapSyncReport> {
        runs++;
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 1_300));
        running--;
        return { checked: 0, updated: 0, disabled: 0, unchanged: 0, unreachable: false, withheld: false };
      },
    };
    const lines: string[] = [];
    const logger = createLogger({ level: "debug", format: "json", write: (line) => lines.push(line) });
    const schedules = nodes.map((n) => scheduleLdapSync(ldap, "* * * * * *", logger, clusterLock(n.db, LDAP_SYNC_LOCK).tryRun));
    await new Promise((r) => setTimeout(r, 3_500));
    await Promise.all(schedules.map((s) => s.stop()));
    expect(runs).toBeGreaterThan(0);
    expect(most).toBe(1);
    expect(lines.some((l) => l.includes("LDAP active sync skipped: another node is running it"))).toBe(true);
  });
});
