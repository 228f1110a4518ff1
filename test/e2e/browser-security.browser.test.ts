// Issue 16 #6 and #11 in Chromium: the issue's scenario — a page on a sibling
// subdomain (wiki.corp.test) auto-submits a form to the dashboard
// (dash.corp.test) while the admin is signed in there. Both names are the same
// site, so SameSite=Lax sends the session cookie; the dashboard must refuse
// the request by its Origin. The page's own requests still work, and its CSP
// blocks an injected inline script. And #12 on the password form: wrong
// current passwords lock the account out, the page says so and stays signed in.
import { createServer, type Server } from "node:http";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, client } from "../helpers/api.ts";
import { collectPolicyViolations, freePort, launchBrowser } from "../helpers/browser.ts";
import { eventually } from "../helpers/eventually.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

describe("CSRF from a sibling subdomain, in Chromium", () => {
  let server: TestServer;
  let wiki: Server;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let dash = "";
  let wikiOrigin = "";
  let violations: string[] = [];
  /** what the wiki page does to the dashboard; set per test */
  let attack = "";

  beforeAll(async () => {
    const port = await freePort();
    server = await startTestServer({ "security.login_max_attempts": 3, "dashboard.http_port": port, "logs.http_port": await freePort(), "metrics.http_port": await freePort() });
    dash = `http://dash.corp.test:${port}`;
    const wikiPort = await freePort();
    wikiOrigin = `http://wiki.corp.test:${wikiPort}`;
    wiki = createServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><title>wiki</title><body>${attack}</body>`);
    });
    await new Promise<void>((resolve) => wiki.listen(wikiPort, "127.0.0.1", resolve));
    browser = await launchBrowser(["--host-resolver-rules=MAP * 127.0.0.1"]);
    context = await browser.newContext();
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    violations = await collectPolicyViolations(page);
    // the admin signs in on the dashboard: the session cookie is now in the browser
    await page.goto(`${dash}/`);
    const login = await page.evaluate(async () =>
      (await fetch("/login", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ user: "admin", password: "admin" }) })).status);
    expect(login).toBe(200);
    expect((await context.cookies(dash)).map((c) => c.name)).toContain("svc_session");
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => wiki?.close(resolve));
    await server?.stop();
  });

  const userExists = async (login: string) =>
    ((await client(server.urls.dashboard).get(`/api/users/search?query=${login}`, { auth: ADMIN })).body.users as Array<{ login: string }>).some((u) => u.login === login);

  it("an auto-submitted text/plain form creating a server user -> refused (403 origin not allowed), no user", async () => {
    // the classic JSON-in-a-form trick: the field name carries the JSON, the value closes it
    const name = `{"login":"planted","password":"pw-planted-123","name":"planted","x":"`;
    attack = `<form id="f" method="POST" action="${dash}/api/admin/users" enctype="text/plain">` +
      `<input type="hidden" name='${name}' value='"}'></form><script>document.getElementById("f").submit()</script>`;
    const answer = page.waitForResponse((r) => r.url() === `${dash}/api/admin/users`);
    await page.goto(`${wikiOrigin}/`);
    const res = await answer;
    expect(res.request().headers()["origin"]).toBe(wikiOrigin);
    expect(res.status()).toBe(403);
    expect(await res.text()).toContain("origin not allowed");
    expect(await userExists("planted")).toBe(false);
  }, 60_000);

  it("a no-cors fetch from the sibling subdomain with the cookie -> refused, no team", async () => {
    attack = `<script>fetch(${JSON.stringify(`${dash}/api/teams`)}, { method: "POST", mode: "no-cors", credentials: "include",` +
      ` headers: { "Content-Type": "text/plain" }, body: JSON.stringify({ name: "planted-team" }) })</script>`;
    const answer = page.waitForResponse((r) => r.url() === `${dash}/api/teams`);
    await page.goto(`${wikiOrigin}/`);
    expect((await answer).status()).toBe(403);
    const teams = await client(server.urls.dashboard).get("/api/teams/search?name=planted-team", { auth: ADMIN });
    expect(teams.body.totalCount).toBe(0);
  }, 60_000);

  it("the dashboard's own page: its JSON requests with the cookie still work", async () => {
    await page.goto(`${dash}/`);
    const status = await page.evaluate(async () => {
      const r = await fetch("/api/teams", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name: "own-page-team" }) });
      return r.status;
    });
    expect(status).toBe(200);
  }, 60_000);

  it("the admin page's CSP blocks a script injected into it (and the collector sees it)", async () => {
    await page.goto(`${dash}/`);
    expect(violations).toEqual([]);
    const ran = await page.evaluate(() => {
      const s = document.createElement("script");
      s.textContent = "window.__injected = true";
      document.body.append(s);
      return (window as unknown as { __injected?: boolean }).__injected === true;
    });
    expect(ran).toBe(false);
    // reported twice: the securitypolicyviolation event and Chromium's console error
    await eventually(() => violations.length, (n) => expect(n).toBe(2));
    expect(violations.join("\n")).toMatch(/script-src/);
    violations.length = 0;
  }, 60_000);

  it("the password form: 3 wrong current passwords -> the page says the account is locked, and stays signed in", async () => {
    const u = await client(server.urls.dashboard).user("locky", "Viewer");
    await page.goto(`${dash}/`);
    const signedIn = await page.evaluate(async (password) =>
      (await fetch("/login", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ user: "locky", password }) })).status, u.password);
    expect(signedIn).toBe(200);
    await page.goto(`${dash}/profile/password`);
    await page.getByRole("heading", { name: "Change password", level: 1 }).waitFor();
    const attempt = async (current: string) => {
      await page.getByLabel("Current password").fill(current);
      await page.getByLabel("New password", { exact: true }).fill("new-locky-pw");
      await page.getByLabel("Confirm new password").fill("new-locky-pw");
      await page.getByRole("button", { name: "Change password" }).click();
    };
    for (let i = 0; i < 3; i++) {
      await attempt(`guess-${i}`);
      await eventually(() => page.getByRole("alert").textContent(), (v) => expect(v).toContain("Invalid old password"));
    }
    await attempt(u.password);
    await eventually(() => page.getByRole("alert").textContent(), (v) => expect(v).toContain("Too many failed sign-in attempts"));
    expect(await page.getByRole("heading", { name: "Change password", level: 1 }).count()).toBe(1);
    expect(violations).toEqual([]);
  }, 60_000);
});
