// Debian's Chromium driven by playwright-core, as the issue prescribes:
// headless, no sandbox (CI runs as root), nothing that phones home (this
// machine's network is closed). Screenshots go to test/.artifacts/screenshots.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { expect } from "vitest";
import { eventually } from "./eventually.ts";
import { repoRoot } from "./paths.ts";

export const CHROMIUM = process.env.OUTPOST_CHROMIUM ?? "/usr/bin/chromium";
export const screenshotDir = join(repoRoot, "test", ".artifacts", "screenshots");

/** extraArgs: e.g. --host-resolver-rules=MAP * 127.0.0.1, so names like dash.corp.test reach this machine */
export async function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: the browser tests need Debian's Chromium (apt-get install chromium; .ci/run installs it)`);
  }
  mkdirSync(screenshotDir, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic", ...extraArgs],
  });
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}

export { freePort } from "./ports.ts";

/**
 * The page's accessibility problems that axe-core rates serious or critical
 * (WCAG 2 A and AA rules), as "rule: what it found" lines; [] when none.
 * axe-core is injected and run as @axe-core/playwright does for a page
 * without frames (the admin page has none); that wrapper's releases since
 * 4.14 declare Node >= 22.12, which tests on Node 20 cannot promise.
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  const { default: axe } = await import("axe-core");
  await page.evaluate(axe.source); // as a DevTools evaluation, not a <script>: the page's CSP does not apply
  const result = await page.evaluate(
    (tags) => (window as unknown as { axe: typeof axe }).axe.run(document, { runOnly: { type: "tag", values: tags } }),
    ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"],
  );
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")})`);
}

/**
 * Collects the page's Content-Security-Policy violations (issue 16 #11): the
 * `securitypolicyviolation` events of every document the page loads, and the
 * console errors Chromium writes for them. Call before the first navigation;
 * the returned list fills as the page runs ([] when the policy never bit).
 */
export async function collectPolicyViolations(page: Page): Promise<string[]> {
  const found: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" && /Content Security Policy/i.test(m.text())) found.push(m.text());
  });
  await page.exposeFunction("__outpostPolicyViolation", (text: string) => found.push(text));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      (window as unknown as { __outpostPolicyViolation(t: string): void }).__outpostPolicyViolation(`${e.effectiveDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  return found;
}

/**
 * Types a LogQL query on a log tenant's query card and runs it until its lines
 * contain `expected`: the tenant list above is polled and may re-render while
 * the query is typed (seen once in four bun runs, and once in CI), so the query
 * is typed and run again, as a person would
 */
export async function runLogQueryUntil(page: Page, query: string, expected: string): Promise<void> {
  const lines = page.getByRole("list", { name: "Log lines, newest first" });
  const run = async () => {
    await page.getByLabel("LogQL query").fill(query);
    await page.getByRole("button", { name: "Run query" }).click();
  };
  await run();
  await eventually(async () => {
    if ((await lines.count()) === 0) {
      await run();
      await lines.waitFor({ timeout: 3_000 }).catch(() => undefined);
    }
    // the whole card: a failure shows what it held instead (an error note, "No lines")
    return page.locator("article:has(#query-title)").textContent({ timeout: 3_000 });
  }, (v) => expect(v).toContain(expected), 30_000);
}
