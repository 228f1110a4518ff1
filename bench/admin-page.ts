// The admin page against the compiled binary on a fresh data dir: the weight
// of what a browser downloads, how fast the dashboard serves the hashed
// script next to GET /api/health, and how long Chromium takes from opening
// the page (signed in) to the overview showing all three services healthy.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { freePort } from "../test/helpers/browser.ts";
import { median, report, startBinary, stopBinary, throughput } from "./lib.ts";

const root = join(import.meta.dirname, "..");
const binary = join(root, "dist", "outpost");
if (!existsSync(binary)) throw new Error("dist/outpost is missing: run npm run build first");
const seconds = Number(process.env.SECONDS_PER_RUN ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 50);
const chromiumPath = process.env.OUTPOST_CHROMIUM ?? "/usr/bin/chromium";

const distDir = join(root, "web-admin", "dist");
let total = 0;
let totalGz = 0;
for (const name of readdirSync(distDir)) {
  const bytes = readFileSync(join(distDir, name));
  total += bytes.length;
  totalGz += gzipSync(bytes).length;
  console.log(`${name}: ${(bytes.length / 1024).toFixed(1)} kB (${(gzipSync(bytes).length / 1024).toFixed(1)} kB gzipped)`);
}
console.log(`admin page in all: ${(total / 1024).toFixed(1)} kB (${(totalGz / 1024).toFixed(1)} kB gzipped)`);
report.figure("admin page, all assets", total / 1024, "kB");
report.figure("admin page, all assets gzipped", totalGz / 1024, "kB");

const dir = mkdtempSync(join(tmpdir(), "outpost-bench-admin-"));
const ports = [await freePort(), await freePort(), await freePort()];
const server = await startBinary(binary, [
  "serve", "--data-dir", join(dir, "data"), "--http-port", String(ports[0]), "--logs-port", String(ports[1]), "--metrics-port", String(ports[2]), "--log-level", "warn",
]);
try {
  const base = server.urls.dashboard!;
  const html = await (await fetch(`${base}/`)).text();
  const script = /src="(\/main-[a-z0-9]+\.js)"/.exec(html)![1]!;
  await throughput(`${base}/api/health`, { seconds: 2, connections }).catch(() => undefined);
  const health = await throughput(`${base}/api/health`, { seconds, connections });
  const asset = await throughput(`${base}${script}`, { seconds, connections });
  // Not measured gzipped: autocannon, in this process, slows down on high-entropy bodies (on bare
  // Bun.serve an 86 kB random body gets 850 req/s where the same size of script text gets 6.4k),
  // so the figure would be the client's. The page-load figure below is with gzip (Chromium asks for it).
  const pct = (rps: number) => `${((rps / health.rps) * 100).toFixed(0)}% of health`;
  console.log(`GET /api/health:        ${Math.round(health.rps)} req/s, p99 ${health.p99} ms`);
  console.log(`GET ${script} (plain): ${Math.round(asset.rps)} req/s, p99 ${asset.p99} ms (${pct(asset.rps)})`);
  report.figure("GET /api/health", health.rps, "req/s", null, { p99Ms: health.p99 });
  report.figure("GET /main-<hash>.js (plain)", asset.rps, "req/s", null, { p99Ms: asset.p99 });
  report.figure("GET /main-<hash>.js (plain) / health", (asset.rps / health.rps) * 100, "%");

  if (!existsSync(chromiumPath)) {
    console.log(`page load: skipped (${chromiumPath} is missing)`);
  } else {
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const login = await context.request.post(`${base}/login`, { data: { user: "admin", password: "admin" } });
      if (!login.ok()) throw new Error(`sign-in failed: ${login.status()}`);
      const page = await context.newPage();
      const times: number[] = [];
      for (let i = 0; i < 7; i++) {
        const t0 = performance.now();
        await page.goto(`${base}/`);
        await page.waitForFunction(() => document.querySelectorAll(".service .badge.ok").length === 3, undefined, { timeout: 30_000 });
        times.push(performance.now() - t0);
      }
      console.log(`page load to three healthy services (signed in, 7 loads, first with a cold cache): median ${median(times).toFixed(0)} ms, first ${times[0]!.toFixed(0)} ms`);
      report.figure("page load to three healthy services (median of 7)", median(times), "ms");
      report.figure("page load to three healthy services (first, cold cache)", times[0]!, "ms");
    } finally {
      await browser.close();
    }
  }
} finally {
  await stopBinary(server.child);
  rmSync(dir, { recursive: true, force: true });
}
report.save();
