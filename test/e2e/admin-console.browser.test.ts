// The admin page's other flows in Chromium, against an in-process enterprise
// server: the lock-out message, users, teams and membership, a second
// organization and the organization switcher, the licence (install, check,
// remove), and what a Viewer sees (plain "permission denied", never a crash);
// the Authentication page with LDAP off, then against a real OpenLDAP (slapd)
// with OpenID Connect configured.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Secret, TOTP } from "otpauth";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateLicenceKeyPair, issueLicenceToken, licenceClaims } from "../../scripts/licence.ts";
import { accessibilityProblems, collectPolicyViolations, freePort, launchBrowser, runLogQueryUntil, shot } from "../helpers/browser.ts";
import { eventually } from "../helpers/eventually.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { LDAP_TOOLS, ROOT_DN, ROOT_PW, SLAPD, SLAPD_SKIPPED, startSlapd, SUFFIX, type Slapd } from "../helpers/slapd.ts";

/** a 1280×800 page that collects page errors and Content-Security-Policy violations (the policy must never bite: issue 16 #11) */
async function watchedPage(browser: Browser) {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  const pageErrors: string[] = [];
  page.on("pageerror", (err) => pageErrors.push(err.message));
  const violations = await collectPolicyViolations(page);
  page.setDefaultTimeout(15_000);
  return { page, pageErrors, violations };
}

describe("admin page in Chromium (enterprise, in-process)", () => {
  const dir = mkdtempSync(join(tmpdir(), "outpost-console-"));
  const pair = generateLicenceKeyPair();
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let base = "";
  let pageErrors: string[] = [];
  /** the admin page's CSP must never bite (issue 16 #11) */
  let violations: string[] = [];

  beforeAll(async () => {
    writeFileSync(join(dir, "licence.pem"), pair.publicPem);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = await startTestServer({
      "server.edition": "enterprise",
      "security.licence_public_key_file": join(dir, "licence.pem"),
      "security.login_max_attempts": 3,
      "dashboard.http_port": port,
      "dashboard.root_url": `${base}/`,
      "logs.http_port": await freePort(),
      "metrics.http_port": await freePort(),
    });
    browser = await launchBrowser();
    ({ page, pageErrors, violations } = await watchedPage(browser));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const switcher = () => page.getByLabel("Organization", { exact: true });
  const signIn = async (user: string, password: string) => {
    await page.getByLabel("User name or email").fill(user);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
  };

  it("after too many failed sign-ins the page says the account is locked", async () => {
    await page.goto(`${base}/`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    for (let i = 0; i < 3; i++) {
      await signIn("admin", `wrong-${i}`);
      await eventually(() => page.getByRole("alert").textContent(), (v) => expect(v).toContain("Wrong user name or password"));
    }
    await signIn("admin", "admin");
    await eventually(() => page.getByRole("alert").textContent(), (v) => expect(v).toContain("Too many failed sign-in attempts"));
    await shot(page, "20-locked-out");
  }, 60_000);

  it("users and teams: creates a user and a team, adds the user to the team", async () => {
    await server.stop();
    // a fresh server: the lock-out above lasts minutes
    const port = Number(new URL(base).port);
    server = await startTestServer({
      "server.edition": "enterprise",
      "security.licence_public_key_file": join(dir, "licence.pem"),
      "dashboard.http_port": port,
      "dashboard.root_url": `${base}/`,
      "logs.http_port": await freePort(),
      "metrics.http_port": await freePort(),
    });
    await page.goto(`${base}/users`);
    await signIn("admin", "admin");
    await page.getByRole("heading", { name: "Users, teams and organizations" }).waitFor();
    await page.getByRole("button", { name: "New user" }).click();
    let dialog = page.getByRole("dialog");
    await dialog.getByLabel("Name").fill("Vera Viewer");
    await dialog.getByLabel("Login").fill("vera");
    await dialog.getByLabel("Email").fill("vera@example.com");
    await dialog.getByLabel("Password").fill("vera-secret");
    await dialog.getByRole("button", { name: "Create user" }).click();
    await eventually(() => page.getByRole("row").filter({ hasText: "vera@example.com" }).count(), (v) => expect(v).toBe(1));

    await page.getByRole("tab", { name: "Teams" }).click();
    await page.getByRole("button", { name: "New team" }).click();
    dialog = page.getByRole("dialog");
    await dialog.getByLabel("Name").fill("SRE");
    await dialog.getByRole("button", { name: "Create team" }).click();
    await page.getByRole("heading", { name: "SRE" }).waitFor();
    await page.getByLabel("User to add").selectOption({ label: "vera (Vera Viewer)" });
    await page.getByRole("button", { name: "Add member" }).click();
    await eventually(() => page.getByRole("row").filter({ hasText: "vera@example.com" }).count(), (v) => expect(v).toBe(1));
    await shot(page, "21-team-members");
  }, 60_000);

  it("organizations: creates one and switches to it with the organization switcher", async () => {
    await page.getByRole("tab", { name: "Organizations" }).click();
    await page.getByRole("button", { name: "New organization" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Name").fill("Second Org");
    await dialog.getByRole("button", { name: "Create organization" }).click();
    await eventually(() => page.getByRole("row").filter({ hasText: "Second Org" }).count(), (v) => expect(v).toBe(1));
    await page.reload();
    await switcher().selectOption({ label: "Second Org (Admin)" });
    await eventually(async () => (await switcher().locator("option:checked").textContent()) ?? "", (v) => expect(v).toBe("Second Org (Admin)"));
    await page.getByRole("link", { name: "Data sources" }).click();
    await page.getByText("No data sources yet").waitFor();
    await switcher().selectOption({ label: "Main Org. (Admin)" });
  }, 60_000);

  it("licence: installs a token, checks it and removes it after the instance URL is typed", async () => {
    await page.getByRole("link", { name: "Licence" }).click();
    await page.getByRole("heading", { name: "Licence", level: 1 }).waitFor();
    const token = issueLicenceToken(pair.privatePem, licenceClaims({ sub: `${base}/`, company: "Acme", includedUsers: 25, days: 30 }, Date.now()));
    await page.getByLabel("Licence token").fill(token);
    await page.getByRole("button", { name: "Install licence" }).click();
    await page.getByText("Licence installed.").waitFor();
    await page.getByRole("button", { name: "Check again" }).click();
    await page.getByText("The installed licence token is valid.").waitFor();
    await shot(page, "22-licence");
    await page.getByRole("button", { name: "Remove licence" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Instance URL").fill("http://elsewhere.example/");
    await dialog.getByRole("button", { name: "Remove licence" }).click();
    await eventually(() => dialog.getByRole("alert").textContent(), (v) => expect(v).toContain("incorrect instance name provided"));
    await dialog.getByLabel("Instance URL").fill(`${base}/`);
    await dialog.getByRole("button", { name: "Remove licence" }).click();
    await page.getByText("Licence removed.").waitFor();
  }, 60_000);

  it("authentication: LDAP and OpenID Connect off say so, the second factor's settings are shown", async () => {
    await page.getByRole("link", { name: "Authentication", exact: true }).click();
    await page.getByRole("heading", { name: "Authentication", level: 1 }).waitFor();
    await page.getByText("LDAP is not enabled on this server").waitFor();
    const facts = page.getByLabel("Sign-in settings");
    await eventually(() => facts.textContent(), (v) => expect(v).toMatch(/Password sign-in\s*enabled.*LDAP\s*not enabled.*OpenID Connect\s*not enabled.*Two-factor \(TOTP\)\s*enabled.*Required for administrators\s*not required/));
    expect(await page.getByRole("button", { name: "Test connection" }).count()).toBe(0);
  }, 60_000);

  it("every page and dialog passes axe-core's WCAG 2 AA checks (nothing serious or critical)", async () => {
    const problems: string[] = [];
    const check = async (where: string) => problems.push(...(await accessibilityProblems(page)).map((p) => `${where}: ${p}`));
    for (const [link, heading] of [
      ["Overview", "Overview"], ["Metrics tenants", "Metrics tenants"], ["Log tenants", "Log tenants"], ["Access", "Access policies"], ["Authentication", "Authentication"], ["Service accounts", "Service accounts"],
      ["Data sources", "Data sources"], ["Users and teams", "Users, teams and organizations"], ["Licence", "Licence"],
    ] as const) {
      await page.getByRole("link", { name: link, exact: true }).click();
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
      await page.waitForLoadState("networkidle");
      await check(link);
    }
    await page.getByRole("link", { name: "Data sources" }).click();
    await page.getByRole("button", { name: "New data source" }).click();
    await page.getByRole("dialog").getByLabel("Name").waitFor();
    await check("new data source dialog");
    await page.keyboard.press("Escape");
    await page.getByRole("link", { name: "Access", exact: true }).click();
    await page.getByRole("button", { name: "New policy" }).click();
    await page.getByRole("dialog").getByLabel("Policy name").waitFor();
    await check("new access policy dialog");
    await page.keyboard.press("Escape");
    await page.getByRole("link", { name: "Change password" }).click();
    await page.getByRole("heading", { name: "Change password", level: 1 }).waitFor();
    await check("change password");
    expect(problems).toEqual([]);
  }, 60_000);

  it("a Viewer signs in: admin-only pages say plainly what is missing, nothing crashes", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await signIn("vera", "vera-secret");
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await eventually(() => page.getByText("needs a server administrator").count(), (v) => expect(v).toBeGreaterThan(0));
    expect(await page.getByText("still has the default password").count()).toBe(0);
    await page.getByRole("link", { name: "Service accounts" }).click();
    await eventually(() => page.getByRole("alert").textContent(), (v) => expect(v).toContain("Permission denied"));
    // what a Viewer may not do is not offered
    expect(await page.getByRole("button", { name: "New service account" }).count()).toBe(0);
    // the stores' tenant pages read every tenant: not offered, and plain when typed in
    expect(await page.getByRole("link", { name: "Metrics tenants" }).count()).toBe(0);
    expect(await page.getByRole("link", { name: "Access", exact: true }).count()).toBe(0);
    await page.goto(`${base}/log-tenants`);
    await page.getByText("it is for server administrators").waitFor();
    await shot(page, "23-viewer-service-accounts");
    expect(pageErrors).toEqual([]);
    expect(violations).toEqual([]);
  }, 60_000);

  it("two-factor authentication: enrols with the QR code's key, shows the recovery codes once, then sign-in asks for a code", async () => {
    const codeAt = (secret: string, timestamp: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp });
    await page.getByRole("link", { name: "Change password" }).click();
    await page.getByRole("heading", { name: "Two-factor authentication" }).waitFor();
    // the current password first: a session alone cannot put a factor on the account
    await page.getByLabel("Your password (to set up two-factor authentication)").fill("vera-secret");
    await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
    await page.getByRole("img", { name: "QR code to scan with an authenticator app" }).waitFor();
    const secret = (await page.getByTestId("totp-secret").textContent()) ?? "";
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(await accessibilityProblems(page)).toEqual([]);
    await shot(page, "24-two-factor-enrol");
    await page.getByLabel("Code from the app").fill(codeAt(secret, Date.now()));
    await page.getByRole("button", { name: "Turn on" }).click();
    const codes = page.getByRole("list", { name: "Recovery codes" });
    await codes.waitFor();
    expect(await codes.getByRole("listitem").count()).toBe(10);
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.getByRole("button", { name: "Done" }).click();
    await page.getByText("10 of 10 recovery codes left").waitFor();
    expect(await page.getByTestId("totp-secret").count()).toBe(0);

    await page.getByRole("button", { name: "Sign out" }).click();
    await signIn("vera", "vera-secret");
    const code = page.getByLabel("Authentication code");
    await code.waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await code.fill("000000" === codeAt(secret, Date.now() + 30_000) ? "111111" : "000000");
    await page.getByRole("button", { name: "Verify" }).click();
    await eventually(() => page.getByRole("alert").textContent(), (v) => expect(v).toContain("Wrong code"));
    // the next step's code: the one that turned it on may not be used twice
    await code.fill(codeAt(secret, Date.now() + 30_000));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    expect(pageErrors).toEqual([]);
    expect(violations).toEqual([]);
  }, 60_000);
});

describe("Access page and the stores in tokens mode, in Chromium (in-process)", () => {
  const ADMIN_TOKEN = "console-admin-token-0123456789abcdef";
  const ADMIN = `Basic ${btoa("admin:admin")}`;
  const basicAuth = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  let server: TestServer;
  let browser: Browser;
  let ui: Awaited<ReturnType<typeof watchedPage>>;
  let base = "";
  const dashboard = (path: string, body?: unknown) =>
    fetch(`${base}${path}`, { method: body ? "POST" : "GET", headers: { Authorization: ADMIN, "Content-Type": "application/json" }, body: body ? JSON.stringify(body) : null });
  const metricsQuery = (tenant: string, secret: string) =>
    fetch(`${server.urls.metrics!}/prometheus/api/v1/query?query=vector(1)`, { headers: { Authorization: basicAuth(tenant, secret) } });

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = await startTestServer({
      "dashboard.http_port": port,
      "dashboard.root_url": `${base}/`,
      "logs.http_port": await freePort(),
      "metrics.http_port": await freePort(),
      "logs.auth.type": "tokens",
      "metrics.auth.type": "tokens",
      "metrics.admin_token": ADMIN_TOKEN,
    });
    // a log shipper with a token of its own: its tenant shows on the log page with the policy reaching it
    expect((await dashboard("/api/admin/access-policies", { name: "shipper", realms: [{ tenant: "*" }], scopes: ["logs:write"] })).status).toBe(200);
    const shipper = (await (await dashboard("/api/admin/access-tokens", { name: "shipper-1", access_policy: "shipper" })).json()).token as string;
    const pushed = await fetch(`${server.urls.logs!}/svc/api/v1/push`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: basicAuth("team-tok", shipper) },
      body: JSON.stringify({ streams: [{ stream: { job: "shipper" }, values: [[String(BigInt(Date.now() - 5_000) * 1_000_000n), "shipped with a token"]] }] }),
    });
    expect(pushed.status).toBe(204);
    browser = await launchBrowser();
    ui = await watchedPage(browser);
    const { page } = ui;
    await page.goto(`${base}/access`);
    await page.getByLabel("User name or email").fill("admin");
    await page.getByLabel("Password").fill("admin");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Access policies", level: 1 }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("creates a policy and a token; the secret is shown once and works; revoking it makes the store refuse it", async () => {
    const { page } = ui;
    await page.getByText("tokens required").first().waitFor();
    await page.getByRole("button", { name: "New policy" }).click();
    let dialog = page.getByRole("dialog");
    await dialog.getByLabel("Policy name").fill("ci-metrics");
    await dialog.getByLabel("Display name").fill("CI metrics");
    await dialog.getByLabel("Tenant 1").fill("team-ci");
    await dialog.getByLabel("metrics:read").check();
    await dialog.getByLabel("metrics:write").check();
    await dialog.getByRole("button", { name: "Create policy" }).click();
    await dialog.waitFor({ state: "detached" });
    const policyRow = page.getByRole("table", { name: "Access policies" }).getByRole("row").filter({ hasText: "ci-metrics" });
    await eventually(() => policyRow.textContent(), (v) => expect(v).toContain("team-ci"));
    expect(await policyRow.textContent()).toContain("metrics:write, metrics:read");

    await page.getByRole("button", { name: "New token" }).click();
    dialog = page.getByRole("dialog");
    await dialog.getByLabel("Token name").fill("ci-token");
    await dialog.getByLabel("Access policy").selectOption("ci-metrics");
    await dialog.getByLabel("Expires").selectOption({ label: "30 days" });
    await dialog.getByRole("button", { name: "Create token" }).click();
    const key = dialog.locator(".key-reveal code");
    await eventually(() => key.textContent(), (v) => expect(v).toMatch(/^[A-Za-z0-9+/=]{40,}$/));
    const secret = (await key.textContent())!;
    expect(await dialog.getByRole("alert").textContent()).toContain("you will not see it again");
    await dialog.getByRole("button", { name: "Copy token" }).waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await shot(page, "30-access-token-shown-once");
    // it works against the metrics store, for its tenant
    expect((await metricsQuery("team-ci", secret)).status).toBe(200);
    await dialog.getByRole("button", { name: "Done" }).click();
    await dialog.waitFor({ state: "detached" });
    const tokenRow = page.getByRole("table", { name: "Access tokens" }).getByRole("row").filter({ hasText: "ci-token" });
    await eventually(() => tokenRow.count(), (v) => expect(v).toBe(1));
    expect(await page.content()).not.toContain(secret);
    // the token's query shows as its use (the list is read every 10 s)
    await eventually(() => tokenRow.locator("td.num").last().textContent(), (v) => expect(v).toBe("1"), 25_000);
    expect(await tokenRow.textContent()).not.toContain("never");
    expect(await policyRow.locator("td.num").textContent()).toBe("1");
    expect(await accessibilityProblems(page)).toEqual([]);
    await shot(page, "31-access-page");

    await tokenRow.getByRole("button", { name: "Revoke ci-token" }).click();
    const confirm = page.getByRole("dialog");
    await confirm.getByRole("button", { name: "Revoke token" }).click();
    await confirm.waitFor({ state: "detached" });
    await eventually(() => tokenRow.count(), (v) => expect(v).toBe(0));
    expect((await metricsQuery("team-ci", secret)).status).toBe(401);
  }, 90_000);

  it("log tenants in tokens mode: asks for the admin token, then lists the tenant with the policies reaching it and queries its lines", async () => {
    const { page, pageErrors, violations } = ui;
    await page.getByRole("link", { name: "Log tenants" }).click();
    await page.getByLabel("Admin API token").fill("not-the-token");
    await page.getByRole("button", { name: "Use token" }).click();
    await eventually(() => page.getByRole("alert").filter({ hasText: "Authentication failed" }).textContent(), (v) => expect(v).toContain("invalid token"));
    await page.getByLabel("Admin API token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Use token" }).click();
    const row = page.getByRole("row").filter({ hasText: "team-tok" });
    await eventually(() => row.textContent(), (v) => expect(v).toContain("shipper"));
    await row.getByRole("button", { name: "Query logs of team-tok" }).click();
    await runLogQueryUntil(page, '{job="shipper"}', "shipped with a token");
    expect(await page.getByRole("list", { name: "Log lines, newest first" }).textContent()).toContain("shipped with a token");
    await shot(page, "32-log-tenants-tokens-mode");
    // the same token serves the metrics pages: not asked for again
    await page.getByRole("link", { name: "Metrics tenants" }).click();
    await page.getByRole("button", { name: "New tenant" }).waitFor();
    expect(await page.getByLabel("Admin API token").count()).toBe(0);
    expect(pageErrors).toEqual([]);
    expect(violations).toEqual([]);
  }, 60_000);
});

const LDAP_AVAILABLE = SLAPD !== undefined && LDAP_TOOLS;

describe.skipIf(!LDAP_AVAILABLE)(`Authentication page with OpenLDAP and OpenID Connect, in Chromium${LDAP_AVAILABLE ? "" : ` (${SLAPD_SKIPPED})`}`, () => {
  const ADMIN = `Basic ${btoa("admin:admin")}`;
  const OIDC_SECRET = "oidc-client-secret-never-shown";
  const dir = LDAP_AVAILABLE ? mkdtempSync(join(tmpdir(), "outpost-console-ldap-")) : "";
  const ldapToml = join(dir, "ldap.toml");
  const people = `ou=people,${SUFFIX}`;
  const groups = `ou=groups,${SUFFIX}`;
  const person = (uid: string, given: string, sn: string) =>
    `dn: uid=${uid},${people}\nobjectClass: inetOrgPerson\nuid: ${uid}\ncn: ${given} ${sn}\ngivenName: ${given}\nsn: ${sn}\nmail: ${uid}@example.org\nuserPassword: ${uid}-pw\n`;
  const groupOf = (cn: string, ...uids: string[]) =>
    `dn: cn=${cn},${groups}\nobjectClass: groupOfNames\ncn: ${cn}\n${[ROOT_DN, ...uids.map((u) => `uid=${u},${people}`)].map((m) => `member: ${m}`).join("\n")}\n`;
  let deadPort = 0;
  const toml = (role: string) => [deadPort, 0].map((port) => `
[[servers]]
host = "127.0.0.1"
port = ${port || slapd!.ldapPort}
bind_dn = "${ROOT_DN}"
bind_password = "${ROOT_PW}"
timeout = 2
search_filter = "(uid=%s)"
search_base_dns = ["${people}"]
attributes = { name = "givenName", surname = "sn", username = "uid", member_of = "memberOf", email = "mail" }

[[servers.group_mappings]]
group_dn = "cn=admins,${groups}"
org_role = "${role}"

[[servers.group_mappings]]
group_dn = "cn=editors,${groups}"
org_role = "Editor"
`).join("");
  let slapd: Slapd | undefined;
  let server: TestServer;
  let browser: Browser;
  let ui: Awaited<ReturnType<typeof watchedPage>>;
  let base = "";
  const dashboard = async (path: string, body?: unknown, authorization = ADMIN) => {
    const res = await fetch(`${base}${path}`, { method: body ? "POST" : "GET", headers: { Authorization: authorization, "Content-Type": "application/json" }, body: body ? JSON.stringify(body) : null });
    expect(res.status, `${path}: ${res.status}`).toBe(200);
    return res.json() as Promise<Record<string, unknown>>;
  };

  beforeAll(async () => {
    slapd = await startSlapd(dir);
    await slapd.apply([
      `dn: ${SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example\n`,
      `dn: ${people}\nobjectClass: organizationalUnit\nou: people\n`,
      `dn: ${groups}\nobjectClass: organizationalUnit\nou: groups\n`,
      person("alice", "Alice", "Admin"),
      person("bob", "Bob", "Builder"),
      groupOf("admins", "alice"),
      groupOf("editors", "bob"),
      groupOf("ops", "alice"),
    ].join("\n"));
    // an unreachable server first (shown as such), then slapd
    deadPort = await freePort();
    writeFileSync(ldapToml, toml("Admin"));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = await startTestServer({
      "server.edition": "enterprise",
      "dashboard.http_port": port,
      "dashboard.root_url": `${base}/`,
      "logs.http_port": await freePort(),
      "metrics.http_port": await freePort(),
      "auth.ldap.enabled": true,
      "auth.ldap.config_file": ldapToml,
      "auth.ldap.skip_org_role_sync": true,
      // discovery happens at the first OAuth sign-in, so the issuer need not answer here
      "auth.generic_oauth.enabled": true,
      "auth.generic_oauth.name": "Keycloak",
      "auth.generic_oauth.issuer": "https://id.example.org/realms/outpost",
      "auth.generic_oauth.client_id": "outpost-admin",
      "auth.generic_oauth.client_secret": OIDC_SECRET,
      "auth.generic_oauth.allowed_domains": ["example.org"],
      "auth.generic_oauth.allowed_groups": ["outpost-users"],
      "auth.generic_oauth.role_attribute_path": "contains(groups[*], 'admins') && 'Admin' || 'Viewer'",
      "security.totp_enabled": false,
    });
    // team sync: the Ops team is linked to the ops group; alice's first LDAP sign-in (basic auth) makes her a member
    const team = await dashboard("/api/teams", { name: "Ops" });
    await dashboard(`/api/teams/${String(team.teamId)}/groups`, { groupId: `cn=ops,${groups}` });
    await dashboard("/api/user", undefined, `Basic ${btoa("alice:alice-pw")}`);
    browser = await launchBrowser();
    ui = await watchedPage(browser);
    const { page } = ui;
    await page.goto(`${base}/authentication`);
    await page.getByLabel("User name or email").fill("admin");
    await page.getByLabel("Password").fill("admin");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Authentication", level: 1 }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await slapd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("shows the providers' settings (never the client secret) and each LDAP server's reachability", async () => {
    const { page } = ui;
    const oidc = page.getByLabel("OpenID Connect settings");
    await eventually(() => oidc.textContent(), (v) => {
      for (const text of ["Keycloak", "https://id.example.org/realms/outpost", "outpost-admin", "openid email profile", "example.org", "outpost-users", "contains(groups[*], 'admins')"]) expect(v).toContain(text);
      expect(v).toMatch(/Client secret\s*configured/);
    });
    expect(await page.content()).not.toContain(OIDC_SECRET);
    const ldap = page.getByLabel("LDAP settings");
    expect(await ldap.textContent()).toContain(ldapToml);
    expect(await ldap.textContent()).toContain("set by hand (skip_org_role_sync)");
    expect(await page.getByLabel("Sign-in settings").textContent()).toMatch(/Two-factor \(TOTP\)\s*turned off/);
    const servers = page.getByRole("table", { name: "LDAP servers" });
    const dead = servers.getByRole("row").filter({ hasText: String(deadPort) });
    const live = servers.getByRole("row").filter({ hasText: String(slapd!.ldapPort) });
    await eventually(() => live.textContent(), (v) => expect(v).toContain("reachable"));
    expect(await dead.textContent()).toContain("unreachable");
    expect((await dead.locator("td").last().textContent())?.length).toBeGreaterThan(1);
    // "Test connection" asks the servers again
    await page.getByRole("button", { name: "Test connection" }).click();
    await eventually(() => live.textContent(), (v) => expect(v).toContain("reachable"));
    expect(await accessibilityProblems(page)).toEqual([]);
    await shot(page, "40-authentication");
  }, 60_000);

  it("tests a user's mapping: attributes, roles, teams, and syncs the local user", async () => {
    const { page } = ui;
    await page.getByLabel("LDAP user name").fill("alice");
    await page.getByRole("button", { name: "Test user mapping" }).click();
    const result = page.getByRole("region", { name: "LDAP mapping of alice" });
    const attrs = result.getByLabel("LDAP attributes");
    await eventually(() => attrs.textContent(), (v) => expect(v).toMatch(/Name\s*Alice \(givenName\)\s*Surname\s*Admin \(sn\)\s*Email\s*alice@example\.org \(mail\)\s*Login\s*alice \(uid\)/));
    expect(await attrs.textContent()).toMatch(/Local user\s*alice\s*LDAP/);
    const roles = result.getByRole("table", { name: "Organization roles from the group mappings" });
    expect(await roles.textContent()).toMatch(/Main Org\.\s*Admin\s*cn=admins/);
    expect(await result.getByRole("table", { name: "Teams team sync would join" }).textContent()).toMatch(/Ops\s*Main Org\.\s*cn=ops/);
    expect(await accessibilityProblems(page)).toEqual([]);
    await shot(page, "41-ldap-user-mapping");
    await result.getByRole("button", { name: "Sync user" }).click();
    await result.getByText("User synced successfully").waitFor();

    // in the directory, never signed in: nothing to sync yet
    await page.getByLabel("LDAP user name").fill("bob");
    await page.getByRole("button", { name: "Test user mapping" }).click();
    const bob = page.getByRole("region", { name: "LDAP mapping of bob" });
    await eventually(() => bob.getByLabel("LDAP attributes").textContent(), (v) => expect(v).toContain("none yet"));
    expect(await bob.getByRole("table", { name: "Organization roles from the group mappings" }).textContent()).toContain("Editor");
    expect(await bob.getByRole("button", { name: "Sync user" }).count()).toBe(0);

    await page.getByLabel("LDAP user name").fill("nobody");
    await page.getByRole("button", { name: "Test user mapping" }).click();
    await page.getByRole("alert").filter({ hasText: "No user was found in the LDAP server(s) with that username" }).waitFor();
  }, 60_000);

  it("reloading an invalid file shows the field in error and keeps the configuration; a good file reloads", async () => {
    const { page } = ui;
    writeFileSync(ldapToml, toml("Boss"));
    await page.getByRole("button", { name: "Reload configuration" }).click();
    const failed = page.getByRole("alert").filter({ hasText: "Failed to reload LDAP config" });
    await eventually(() => failed.textContent(), (v) => expect(v).toMatch(/org_role.*Boss/));
    writeFileSync(ldapToml, toml("Admin"));
    await page.getByRole("button", { name: "Reload configuration" }).click();
    await page.getByText("LDAP config reloaded").waitFor();
    expect(await failed.count()).toBe(0);
  }, 60_000);

  it("the team's member list marks who team sync added", async () => {
    const { page, pageErrors, violations } = ui;
    await page.getByRole("link", { name: "Users and teams" }).click();
    await page.getByRole("tab", { name: "Teams" }).click();
    await page.getByRole("button", { name: "Ops" }).click();
    await page.getByLabel("User to add").selectOption({ label: "admin" });
    await page.getByRole("button", { name: "Add member" }).click();
    const members = page.getByRole("table", { name: "Members of Ops" });
    await eventually(() => members.getByRole("row").count(), (v) => expect(v).toBe(3));
    expect(await members.getByRole("row").filter({ hasText: "alice@example.org" }).textContent()).toContain("synced · LDAP");
    expect(await members.getByRole("row").filter({ has: page.getByRole("cell", { name: "admin", exact: true }) }).textContent()).toContain("by hand");
    expect(await accessibilityProblems(page)).toEqual([]);
    await shot(page, "42-team-sync-members");
    expect(pageErrors).toEqual([]);
    expect(violations).toEqual([]);
  }, 60_000);
});
