// The admin page in a real browser against the compiled binary on a fresh
// data dir, as a new user meets it: sign in as admin/admin, change the
// default password, see the three services, create a metrics tenant with
// limits, read a log tenant's lines, create a service account and a token
// (its key shown once), create a data source and test it, sign out.
// Screenshots: test/.artifacts/screenshots (git-ignored).
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/build.ts";
import { collectPolicyViolations, freePort, launchBrowser, runLogQueryUntil, shot } from "../helpers/browser.ts";
import { eventually } from "../helpers/eventually.ts";
import { distBinary } from "../helpers/paths.ts";
import { startChild, type Child } from "../helpers/process.ts";
import { logClient, nsAgo } from "../logstore/helpers.ts";
import { metricsClient } from "../metrics/helpers.ts";

const NEW_PASSWORD = "correct-horse-battery";

describe("admin page in Chromium (dist/outpost, fresh data dir)", () => {
  let server: Child;
  let browser: Browser;
  let page: Page;
  let base = "";
  let adminToken = "";
  let folder = "";
  const pageErrors: string[] = [];
  /** the admin page's CSP must never bite (issue 16 #11) */
  let violations: string[] = [];

  beforeAll(async () => {
    ensureBuilt();
    folder = mkdtempSync(join(tmpdir(), "outpost-browser-"));
    const binary = join(folder, "outpost");
    copyFileSync(distBinary, binary);
    const [http, logs, metrics] = [await freePort(), await freePort(), await freePort()];
    server = await startChild(binary, ["serve", "--data-dir", join(folder, "data"), "--http-port", String(http), "--logs-port", String(logs), "--metrics-port", String(metrics)], {
      cwd: folder,
      timeoutMs: 60_000,
    });
    base = server.urls.dashboard!;
    adminToken = /admin token \(shown[^\n]*\): (\S+)/.exec(server.stderr())?.[1] ?? "";
    // something for the page to show: samples for one tenant, log lines for another
    const now = Date.now();
    await metricsClient(server.urls.metrics!).push("team-metrics", [
      { labels: { __name__: "up", job: "node" }, samples: [[now - 1000, 1]] },
      { labels: { __name__: "http_requests_total", job: "api" }, samples: [[now - 1000, 42]] },
    ]);
    await logClient(server.urls.logs!).push("team-logs", [
      { stream: { job: "web", level: "info" }, values: [[nsAgo(30), "GET /index.html 200"], [nsAgo(20), "GET /missing 404"]] },
    ]);
    // and one record over OpenTelemetry, counted apart on the page
    const otlp = await fetch(`${server.urls.logs}/otlp/v1/logs`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Scope-OrgID": "team-logs" },
      body: JSON.stringify({ resourceLogs: [{ resource: { attributes: [{ key: "service.name", value: { stringValue: "web" } }] }, scopeLogs: [{ logRecords: [{ timeUnixNano: nsAgo(10), body: { stringValue: "otel hello" } }] }] }] }),
    });
    expect(otlp.status).toBe(200);
    const otlpMetrics = await fetch(`${server.urls.metrics}/otlp/v1/metrics`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Scope-OrgID": "team-metrics" },
      body: JSON.stringify({ resourceMetrics: [{ resource: { attributes: [{ key: "service.name", value: { stringValue: "api" } }] }, scopeMetrics: [{ metrics: [{ name: "queue.depth", gauge: { dataPoints: [{ timeUnixNano: String((now - 1000) * 1e6), asDouble: 3 }] } }] }] }] }),
    });
    expect(otlpMetrics.status).toBe(200);
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on("pageerror", (err) => pageErrors.push(err.message));
    violations = await collectPolicyViolations(page);
    page.setDefaultTimeout(15_000);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    // a copy of the binary and a data dir: ~170 MB a run, left behind they fill a machine's disk
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it("a wrong password gets a clear message; admin/admin signs in and shows the default-password banner", async () => {
    expect(adminToken).toMatch(/\S{20,}/);
    await page.goto(`${base}/`);
    await page.getByLabel("User name or email").fill("admin");
    await page.getByLabel("Password").fill("wrong");
    await page.keyboard.press("Enter");
    await eventually(() => page.getByRole("alert").textContent(), (v) => expect(v).toContain("Wrong user name or password"));
    await shot(page, "01-sign-in-wrong-password");

    await page.getByLabel("Password").fill("admin");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await eventually(() => page.getByRole("alert").filter({ hasText: "default password" }).count(), (v) => expect(v).toBe(1));
  }, 60_000);

  it("the overview shows the three services healthy, storage and live figures", async () => {
    for (const name of ["Dashboard API", "Log store", "Metrics store"]) {
      const card = page.getByRole("article").filter({ has: page.getByRole("heading", { name }) });
      await eventually(() => card.getByText("healthy", { exact: true }).count(), (v) => expect(v).toBe(1), 20_000);
    }
    await eventually(() => page.getByText("Size on disk").count(), (v) => expect(v).toBe(1));
    // the second scrape turns counters into rates
    await page.waitForFunction(() => !document.querySelector(".live")?.textContent?.includes("first figures"), undefined, { timeout: 20_000 });
    await shot(page, "02-overview");
  }, 60_000);

  it("the banner leads to the password form; after the change the banner is gone", async () => {
    await page.getByRole("link", { name: "Change it now" }).click();
    await page.getByRole("heading", { name: "Change password", level: 1 }).waitFor();
    await page.getByLabel("Current password").fill("admin");
    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("Confirm new password").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Password changed.").waitFor();
    await eventually(() => page.getByText("still has the default password").count(), (v) => expect(v).toBe(0));
    await shot(page, "03-password-changed");
  }, 60_000);

  it("metrics tenants: asks for the admin token, creates a tenant with limits and lists it with its usage", async () => {
    await page.getByRole("link", { name: "Metrics tenants" }).click();
    await page.getByLabel("Admin API token").fill("not-the-token");
    await page.getByRole("button", { name: "Use token" }).click();
    await eventually(() => page.getByRole("alert").textContent(), (v) => expect(v).toContain("invalid admin token"));
    await page.getByLabel("Admin API token").fill(adminToken);
    await page.getByRole("button", { name: "Use token" }).click();
    await page.getByRole("button", { name: "New tenant" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Tenant name").fill("team-metrics");
    await dialog.getByLabel("Display name").fill("Team Metrics");
    await dialog.getByLabel("Max active series", { exact: true }).fill("10");
    await dialog.getByLabel("Ingestion rate (samples/s)").fill("500");
    await shot(page, "04-new-tenant-form");
    await dialog.getByRole("button", { name: "Create tenant" }).click();
    await dialog.waitFor({ state: "detached" });
    const row = page.getByRole("row").filter({ hasText: "team-metrics" });
    await eventually(() => row.textContent(), (v) => expect(v).toContain("Team Metrics"));
    await eventually(() => row.textContent(), (v) => expect(v).toContain("admin API"));
    await eventually(() => row.textContent(), (v) => expect(v).toContain("1 data point"));
    // 3 active series of the 10 allowed (two remote-written, one over OTLP)
    await eventually(() => row.getByRole("meter", { name: "Active series of team-metrics" }).getAttribute("aria-valuetext"), (v) => expect(v).toBe("3 of 10"));
    await row.getByRole("button", { name: "team-metrics", exact: true }).click();
    await page.getByRole("heading", { name: "team-metrics — Team Metrics" }).waitFor();
    // retention applied: the tenant's period, its oldest sample, the last run (issue 25)
    const detail = page.getByRole("article").filter({ hasText: "team-metrics — Team Metrics" });
    await eventually(() => detail.textContent(), (v) => expect(v).toMatch(/Retention\s*(\d+[a-z]+|kept forever).*Oldest sample.*Last retention run/s));
    await shot(page, "05-metrics-tenants");
  }, 60_000);

  it("log tenants: lists the tenant that pushed and shows its lines for a LogQL query", async () => {
    await page.getByRole("link", { name: "Log tenants" }).click();
    const row = page.getByRole("row").filter({ hasText: "team-logs" });
    await eventually(() => row.count(), (v) => expect(v).toBe(1));
    await eventually(() => row.textContent(), (v) => expect(v).toContain("1 line, 10 B"));
    await row.getByRole("button", { name: "Query logs of team-logs" }).click();
    await runLogQueryUntil(page, '{job="web"}', "GET /missing 404");
    expect(await page.getByRole("list", { name: "Log lines, newest first" }).textContent()).toContain("GET /missing 404");
    // retention is shown with the tenant: the default period, and the note above the list
    expect(await row.textContent()).toContain("31d");
    expect(await page.getByText("Retention deletes chunks past each tenant's period").count()).toBe(1);
    await shot(page, "06-log-tenants");
  }, 60_000);

  it("service accounts: creates one, creates a token whose key is shown exactly once", async () => {
    await page.getByRole("link", { name: "Service accounts" }).click();
    await page.getByRole("button", { name: "New service account" }).click();
    let dialog = page.getByRole("dialog");
    await dialog.getByLabel("Name").fill("ci-bot");
    await dialog.getByLabel("Role").selectOption("Editor");
    await dialog.getByRole("button", { name: "Create" }).click();
    await dialog.waitFor({ state: "detached" });
    const row = page.getByRole("row").filter({ hasText: "ci-bot" });
    await row.getByRole("button", { name: /Tokens/ }).click();
    dialog = page.getByRole("dialog");
    await dialog.getByLabel("Token name").fill("deploy");
    await dialog.getByRole("button", { name: /Add token|Create token/ }).click();
    const key = dialog.locator(".key-reveal code");
    await eventually(() => key.textContent(), (v) => expect(v).toMatch(/^\w+_\w{32}_[0-9a-f]{8}$/));
    const shown = (await key.textContent())!;
    await eventually(() => dialog.getByRole("alert").filter({ hasText: "will not be shown again" }).count(), (v) => expect(v).toBe(1));
    await shot(page, "07-token-shown-once");
    // the key works, and is nowhere once the dialog is closed
    const res = await fetch(`${base}/api/search`, { headers: { Authorization: `Bearer ${shown}` } });
    expect(res.status).toBe(200);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await row.getByRole("button", { name: /Tokens/ }).click();
    await page.getByRole("dialog").getByText("deploy").first().waitFor();
    expect(await page.content()).not.toContain(shown);
    await page.keyboard.press("Escape");
  }, 60_000);

  it("data sources: creates a loki data source for the bundled log store and Save & test succeeds", async () => {
    await page.getByRole("link", { name: "Data sources" }).click();
    await page.getByRole("button", { name: "New data source" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Name").fill("Bundled logs");
    await dialog.getByLabel("Tenant").fill("team-logs");
    await dialog.getByRole("button", { name: "Save & test" }).click();
    await eventually(() => dialog.locator(".alert.ok").textContent(), (v) => expect(v).toMatch(/\S/), 20_000);
    await shot(page, "08-datasource-tested");
    await page.keyboard.press("Escape");
    const row = page.getByRole("row").filter({ hasText: "Bundled logs" });
    await eventually(() => row.count(), (v) => expect(v).toBe(1));

    // a basic-auth password: sent once, then only ever shown as "configured"
    const secret = "s3cret-basic-pw";
    await row.getByRole("button", { name: "Edit" }).click();
    let edit = page.getByRole("dialog");
    await edit.getByLabel("Basic auth").check();
    await edit.getByLabel("User", { exact: true }).fill("reader");
    await edit.getByLabel("Password").fill(secret);
    await edit.getByRole("button", { name: "Save & test" }).click();
    await eventually(() => edit.locator(".alert.ok, .alert.error").count(), (v) => expect(v).toBe(1), 20_000);
    await page.keyboard.press("Escape");
    await edit.waitFor({ state: "detached" });
    await row.getByRole("button", { name: "Edit" }).click();
    edit = page.getByRole("dialog");
    await edit.locator(".secret").getByText("configured").waitFor();
    expect(await edit.getByLabel("Password").count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    await shot(page, "08b-datasource-secret-configured");
    // Reset, then saving with the field left empty clears it
    await edit.getByRole("button", { name: "Reset" }).click();
    await edit.getByRole("button", { name: "Save & test" }).click();
    await eventually(() => edit.locator(".alert.ok, .alert.error").count(), (v) => expect(v).toBe(1), 20_000);
    const stored = await page.evaluate(async () => (await fetch("/api/datasources/name/Bundled%20logs")).json());
    expect(stored.secureJsonFields?.basicAuthPassword ?? false).toBe(false);
    await page.keyboard.press("Escape");
  }, 60_000);

  it("users and teams, and a narrow window", async () => {
    await page.getByRole("link", { name: "Users and teams" }).click();
    await eventually(() => page.getByRole("row").filter({ hasText: "admin" }).count(), (v) => expect(v).toBeGreaterThan(0));
    await shot(page, "09-users");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByRole("link", { name: "Overview" }).click();
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await shot(page, "10-overview-narrow");
    await page.setViewportSize({ width: 1280, height: 800 });
  }, 60_000);

  it("the keyboard reaches the sign-out button; signing out returns to the sign-in form", async () => {
    await page.goto(`${base}/users`);
    await page.getByRole("heading", { level: 1 }).waitFor();
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate(() => document.activeElement?.textContent === "Sign out");
    }
    expect(reached).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem("outpost.metricsAdminToken"))).toBe(adminToken);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    // the metrics admin token leaves with the session
    expect(await page.evaluate(() => sessionStorage.getItem("outpost.metricsAdminToken"))).toBeNull();
    // the session is over for the API too
    await shot(page, "11-signed-out");
    expect(pageErrors).toEqual([]);
    expect(violations).toEqual([]);
  }, 60_000);
});
