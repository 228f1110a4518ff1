// OpenID Connect sign-in in Chromium: the sign-in page's "Sign in with
// Keycloak" button, the provider's own login form (oidc-provider's
// development interactions, a real OpenID provider started here), and back on
// the admin page, signed in with the role role_attribute_path gives; then a
// refused domain comes back as the page's message.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectPolicyViolations, freePort, launchBrowser, shot } from "../helpers/browser.ts";
import { eventually } from "../helpers/eventually.ts";
import { startOidcProvider, type OidcProvider } from "../helpers/oidc.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

describe("OpenID Connect sign-in on the admin page (Chromium)", () => {
  let provider: OidcProvider;
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let base = "";
  const pageErrors: string[] = [];
  let violations: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    provider = await startOidcProvider(await freePort(), [{
      client_id: "outpost", client_secret: "browser-client-secret",
      redirect_uris: [`${base}/login/generic_oauth`], post_logout_redirect_uris: [`${base}/`],
    }], {
      dora: { email: "dora@example.com", name: "Dora Editor", groups: ["editors"] },
      mallory: { email: "mallory@elsewhere.test", name: "Mallory", groups: ["editors"] },
    });
    server = await startTestServer({
      "dashboard.http_port": port,
      "dashboard.root_url": `${base}/`,
      "logs.http_port": await freePort(),
      "metrics.http_port": await freePort(),
      "auth.generic_oauth.enabled": true,
      "auth.generic_oauth.name": "Keycloak",
      "auth.generic_oauth.client_id": "outpost",
      "auth.generic_oauth.client_secret": "browser-client-secret",
      "auth.generic_oauth.issuer": provider.issuer,
      "auth.generic_oauth.role_attribute_path": "contains(groups[*], 'editors') && 'Editor' || 'Viewer'",
      "auth.generic_oauth.allowed_domains": ["example.com"],
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
    await provider?.stop();
  });

  const signInAtProvider = async (login: string) => {
    await page.goto(`${base}/`);
    await page.getByRole("link", { name: "Sign in with Keycloak" }).click();
    // the provider's development login form
    await page.waitForURL((u) => u.origin === provider.issuer);
    await page.locator("input[name=login]").fill(login);
    await page.locator("input[name=password]").fill("any-password");
    await page.getByRole("button", { name: "Sign-in" }).click();
  };

  it("click \"Sign in with Keycloak\", sign in at the provider, land signed in on the page", async () => {
    await signInAtProvider("dora");
    await page.waitForURL((u) => u.origin === base);
    await eventually(() => page.evaluate(() => fetch("/api/user").then((r) => r.json() as Promise<{ login: string }>)), (u) => expect(u.login).toBe("dora@example.com"));
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    const orgs = await page.evaluate(() => fetch("/api/user/orgs").then((r) => r.json() as Promise<Array<{ role: string }>>));
    expect(orgs.map((o) => o.role)).toEqual(["Editor"]);
    await shot(page, "60-oauth-signed-in");
  }, 60_000);

  it("a refused sign-in comes back to the sign-in page with the reason", async () => {
    await page.context().clearCookies();
    await signInAtProvider("mallory");
    await page.waitForURL((u) => u.origin === base && u.pathname === "/login");
    await eventually(() => page.getByRole("alert").textContent(), (v) => expect(v).toContain("Required email domain not fulfilled"));
    await shot(page, "61-oauth-refused");
    expect(pageErrors).toEqual([]);
    expect(violations).toEqual([]);
  }, 60_000);
});
