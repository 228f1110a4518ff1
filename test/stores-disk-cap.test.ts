// A disk that never fills (storage.max_disk_usage): past the cap the oldest
// log chunks are dropped first (logged and counted per tenant) and the newer
// ones stay; when nothing is left to drop, pushes to both stores are refused
// with 507 and the reason, and accepted again once the cap allows.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { directorySize } from "../src/lib/dir-size.ts";
import { lowSpaceWarning } from "../src/lib/disk-guard.ts";
import { loadConfig } from "../src/config/load.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";
import { tempDirs } from "./helpers/temp-dirs.ts";
import { logClient } from "./logstore/helpers.ts";

const HOUR = 3_600_000;
const ns = (ms: number) => String(BigInt(ms) * 1_000_000n);

/** ~`mb` MiB of lines that do not compress much (hex of random bytes: about half), timestamped in [fromMs, toMs) */
async function pushRandom(server: TestServer, tenant: string, mb: number, fromMs: number, toMs: number): Promise<void> {
  const lines = mb * 1024; // 1 KiB each
  const batch = 512;
  for (let i = 0; i < lines; i += batch) {
    const values: [string, string][] = [];
    for (let j = i; j < Math.min(lines, i + batch); j++) values.push([ns(fromMs + Math.floor(((toMs - fromMs) * j) / lines)), randomBytes(512).toString("hex")]);
    const r = await logClient(server.urls.logs!).push(tenant, [{ stream: { app: "big" }, values }]);
    expect(r.status, r.text).toBe(204);
  }
}

describe("storage.max_disk_usage", () => {
  const dir = tempDirs("outpost-disk-cap-")();
  const base = {
    "storage.in_memory": false,
    "storage.data_dir": dir,
    "logs.limits.ingestion_rate_mb": 1000,
    "logs.limits.ingestion_burst_size_mb": 1000,
    // only the check at start runs in this test
    "storage.disk_check_interval": "1h",
  };
  const now = Date.now();
  const query = async (server: TestServer, fromMs: number, toMs: number) => {
    const r = await logClient(server.urls.logs!).get("/svc/api/v1/query_range", "t", { query: '{app="big"}', start: ns(fromMs), end: ns(toMs), limit: "5" });
    expect(r.status, r.text).toBe(200);
    return (r.body.data.result as Array<{ values: unknown[] }>).reduce((n, s) => n + s.values.length, 0);
  };

  it("past the cap the oldest chunks go first, counted and logged per tenant; newer ones stay", async () => {
    // older lines (five to four days ago), then, after a restart, newer ones (the last two hours):
    // each run writes its own chunk file
    let server = await startTestServer(base);
    await pushRandom(server, "t", 24, now - 5 * 24 * HOUR, now - 4 * 24 * HOUR);
    await server.stop();
    server = await startTestServer(base);
    await pushRandom(server, "t", 4, now - 2 * HOUR, now - HOUR);
    await server.stop();
    const all = await directorySize(dir);
    // a cap the data dir is past by half the old chunks (~12 MiB on disk); what the database holds varies a little
    const cap = all - 6 * 1024 * 1024;
    server = await startTestServer({ ...base, "storage.max_disk_usage": cap });
    try {
      expect(await query(server, now - 6 * 24 * HOUR, now - 3 * 24 * HOUR)).toBe(0);
      expect(await query(server, now - 3 * HOUR, now)).toBe(5);
      const metrics = await (await fetch(`${server.urls.logs}/metrics`)).text();
      expect(metrics).toMatch(/svc_disk_cap_dropped_chunks_total\{tenant="t"\} [1-9]/);
      expect(metrics).toMatch(/svc_disk_cap_dropped_bytes_total\{tenant="t"\} [1-9]/);
      expect(server.logs.some((l) => l.msg === "dropped the oldest log chunks to keep the disk from filling" && l.tenant === "t")).toBe(true);
      // pushes are still accepted: there was room to make
      const r = await logClient(server.urls.logs!).push("t", [{ stream: { app: "small" }, values: [[ns(Date.now() - 1000), "still accepted"]] }]);
      expect(r.status, r.text).toBe(204);
    } finally {
      await server.stop();
    }
  });

  it("when dropping cannot make room, both stores refuse pushes with 507 and the reason; without the cap they accept again", async () => {
    let server = await startTestServer({ ...base, "storage.max_disk_usage": "1MiB" });
    try {
      // everything droppable went at start: no stored log line is left
      expect(await query(server, now - 6 * 24 * HOUR, now)).toBe(0);
      const r = await logClient(server.urls.logs!).push("t", [{ stream: { app: "small" }, values: [[ns(Date.now() - 1000), "refused"]] }]);
      expect(r.status).toBe(507);
      expect(r.text).toContain("no stored chunk is left to drop: pushes are refused until space is freed");
      // the figures go to the server's log only, never to a caller
      expect(r.text).not.toMatch(/MiB|GiB/);
      expect(server.logs.some((l) => l.level === "error" && /over storage\.max_disk_usage \(1 MiB\)/.test(String(l.msg)))).toBe(true);
      const otlp = await fetch(`${server.urls.logs}/otlp/v1/logs`, { method: "POST", headers: { "Content-Type": "application/json", "X-Scope-OrgID": "t" }, body: "{}" });
      expect(otlp.status).toBe(507);
      const rw = await fetch(`${server.urls.metrics}/api/v1/push`, { method: "POST", headers: { "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy", "X-Scope-OrgID": "t" }, body: new Uint8Array(0) });
      expect(rw.status).toBe(507);
      expect(await rw.text()).toContain("no stored chunk is left to drop");
      // queries still answer
      expect((await fetch(`${server.urls.metrics}/prometheus/api/v1/query?query=vector(1)`, { headers: { "X-Scope-OrgID": "t" } })).status).toBe(200);
      expect(server.logs.some((l) => l.level === "error" && String(l.msg).startsWith("refusing pushes:"))).toBe(true);
    } finally {
      await server.stop();
    }
    server = await startTestServer(base);
    try {
      const r = await logClient(server.urls.logs!).push("t", [{ stream: { app: "small" }, values: [[ns(Date.now() - 1000), "accepted"]] }]);
      expect(r.status, r.text).toBe(204);
    } finally {
      await server.stop();
    }
  });

  it("the setting takes bytes, sizes with a unit or a percentage of the filesystem; a bad value names the key", () => {
    expect(loadConfig({ flags: { "storage.max_disk_usage": "80%" } }).storage.max_disk_usage).toEqual({ percent: 80 });
    expect(loadConfig({ flags: { "storage.max_disk_usage": "50GiB" } }).storage.max_disk_usage).toEqual({ bytes: 50 * 1024 ** 3 });
    expect(loadConfig({ flags: {} }).storage.max_disk_usage).toBeUndefined();
    expect(() => loadConfig({ flags: { "storage.max_disk_usage": "150%" } })).toThrow(/storage\.max_disk_usage.*at most 100%/s);
    expect(() => loadConfig({ flags: { "storage.max_disk_usage": "lots" } })).toThrow(/storage\.max_disk_usage/);
  });

  it("a start on a nearly full filesystem is warned about", () => {
    const GiB = 1024 ** 3;
    expect(lowSpaceWarning({ used: 0, database: 0, cap: undefined, free: 50 * 1024 * 1024, size: 100 * GiB }, 100 * 1024 * 1024)).toMatch(/only 50 MiB free of 100 GiB/);
    expect(lowSpaceWarning({ used: 0, database: 0, cap: undefined, free: 40 * GiB, size: 100 * GiB }, 100 * 1024 * 1024)).toBeUndefined();
  });
});
