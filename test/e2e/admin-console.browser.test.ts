// The admin page's other flows in Chromium, against an in-process enterprise
// server: the lock-out message, users, teams and membership, a second
// organization and the organization switcher, the licence (install, check,
// remove), and what a Viewer sees (plain "permission denied", never a crash).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateLicenceKeyPair, issueLicenceToken, licenceClaims } from "../../scripts/licence.ts";
import { accessibilityProblems, collectPolicyViolations, freePort, launchBrowser, shot } from "../helpers/browser.ts";
import { eventually } from "../helpers/eventually.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

describe("admin page in Chromium (enterprise, in-process)", () => {
  const dir = mkdtempSync(join(tmpdir(), "outpost-console-"));
  const pair = generateLicenceKeyPair();
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let base = "";
  const pageErrors: string[] = [];
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
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on("pageerror", (err) => pageErrors.push(err.message));
    violations = await collectPolicyViolations(page);
    page.setDefaultTimeout(15_000);
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

  it("every page and dialog passes axe-core's WCAG 2 AA checks (nothing serious or critical)", async () => {
    const problems: string[] = [];
    const check = async (where: string) => problems.push(...(await accessibilityProblems(page)).map((p) => `${where}: ${p}`));
    for (const [link, heading] of [
      ["Overview", "Overview"], ["Metrics tenants", "Metrics tenants"], ["Log tenants", "Log tenants"], ["Service accounts", "Service accounts"],
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
    await page.goto(`${base}/log-tenants`);
    await page.getByText("it is for server administrators").waitFor();
    await shot(page, "23-viewer-service-accounts");
    expect(pageErrors).toEqual([]);
    expect(violations).toEqual([]);
  }, 60_000);
});
