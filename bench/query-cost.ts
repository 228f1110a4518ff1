// One PromQL request against the compiled binary (issue 16 #2): the biggest
// query the default max_samples_per_query allows, and one it refuses
// (count_over_time(vector(1)[4d:10ms]), 34.6M steps), and range vectors as
// the answer (2.6M points allowed, 9.5M refused), each while /api/health
// on the dashboard is probed back to back. Prints the growth of the server's
// resident memory (peak, sampled from /proc every 10 ms; target: < 1 GB) and
// the slowest probe (target: < 500 ms). BINARY=... picks another build; with
// SOURCE=1 the source runs under this runtime instead.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { report, startBinary, stopBinary } from "./lib.ts";

const root = join(import.meta.dirname, "..");
const binary = process.env.BINARY ?? join(root, "dist", "outpost");
const fromSource = process.env.SOURCE === "1" || !existsSync(binary);
const dir = mkdtempSync(join(tmpdir(), "outpost-bench-qcost-"));
const args = ["serve", "--data-dir", join(dir, "data"), "--http-port", "0", "--no-logs", "--metrics-port", "0", "--log-level", "warn"];
const server = fromSource ? await startBinary(process.execPath, [join(root, "src", "main.ts"), ...args], 2) : await startBinary(binary, args, 2);

/** resident memory of the server in bytes (Linux /proc), NaN elsewhere */
function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

async function measure(label: string, query: string): Promise<void> {
  const pid = server.child.pid!;
  await new Promise((r) => setTimeout(r, 500));
  const before = rssOf(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 10);
  let running = true;
  let slowest = 0;
  let probes = 0;
  const probing = (async () => {
    while (running) {
      const t = performance.now();
      const res = await fetch(`${server.urls.dashboard}/api/health`);
      await res.arrayBuffer();
      slowest = Math.max(slowest, performance.now() - t);
      probes++;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const t0 = performance.now();
  const res = await fetch(`${server.urls.metrics}/prometheus/api/v1/query?${new URLSearchParams({ query, time: "1700000000" })}`, {
    headers: { "X-Scope-OrgID": "bench" },
  });
  const body = await res.text();
  const took = performance.now() - t0;
  running = false;
  await probing;
  clearInterval(sampler);
  report.figure(`${label}: ${query}, time`, took, "ms", null, { status: res.status });
  report.figure(`${label}: ${query}, peak RSS growth`, (peak - before) / 1e6, "MB", "< 1000");
  report.figure(`${label}: ${query}, slowest /api/health probe`, slowest, "ms", "< 500", { probes });
  console.log(
    `${label}: ${query} -> ${res.status} ${body.slice(0, 90)} in ${took.toFixed(0)} ms; ` +
      `resident memory +${((peak - before) / 1e6).toFixed(0)} MB at peak (target < 1000 MB); ` +
      `slowest of ${probes} /api/health probes ${slowest.toFixed(0)} ms (target < 500 ms)`,
  );
}

try {
  console.log(`server: ${fromSource ? `source under ${process.execPath}` : binary}`);
  // 9.5M subquery steps and 9.5M points: just under the default 20M
  await measure("biggest allowed", "count_over_time(vector(1)[11d:100ms])");
  await measure("refused", "count_over_time(vector(1)[4d:10ms])");
  // a range vector as the answer: its points count again while written (render-json.ts)
  await measure("allowed, a range vector as the answer", "vector(1)[3d:100ms]");
  await measure("refused, a range vector as the answer", "vector(1)[11d:100ms]");
  await measure("allowed, nested", "max_over_time(count_over_time(vector(1)[1d:100ms])[1h:1m])");
} finally {
  await stopBinary(server.child);
  rmSync(dir, { recursive: true, force: true });
}
report.save();
