// Failover of the stores between nodes on one PostgreSQL database (issue
// 26): three Outpost processes, one running the stores, the others standbys
// that forward to it. Log lines and samples are pushed without pause through
// the standbys; the active node is killed with SIGKILL; a standby takes the
// store lock, replays the shared write-ahead log and serves, and every line
// and sample that was acknowledged (before, during and after) is queryable.
// The killed node, started again, comes back as a standby; a clean stop of
// the active node hands the stores over with nothing lost either.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pgClient from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pollUntil } from "../helpers/eventually.ts";
import { bunBin, repoRoot } from "../helpers/paths.ts";
import { startPostgres, type PostgresServer } from "../helpers/postgres.ts";
import { freePortArgs, startChild, type Child } from "../helpers/process.ts";
import { logClient } from "../logstore/helpers.ts";
import { metricsClient } from "../metrics/helpers.ts";

let pg: PostgresServer;
let url = "";
/** the nodes' database, read as an operator would */
let db: pgClient.Pool;
let dir = "";
const nodes = new Map<string, Child>();

const startNode = async (name: string) => {
  const child = await startChild(bunBin, [
    join(repoRoot, "src", "main.ts"), "serve", "--database-url", url, "--data-dir", join(dir, name), "--node-name", name,
    "--secret-key", "the-cluster-wide-secret-key-of-the-failover-test", ...freePortArgs,
  ], { cwd: dir });
  nodes.set(name, child);
  return child;
};

/** the node running the stores, as the database says (up: heard of in the last 10 s) */
async function activeNode(): Promise<string | undefined> {
  const r = await db.query("select name from cluster_nodes where store_active and heartbeat_at > now() - interval '10 seconds'");
  return r.rows[0]?.name as string | undefined;
}

beforeAll(async () => {
  pg = await startPostgres();
  url = await pg.createDatabase();
  db = new pgClient.Pool({ connectionString: url, max: 1 });
  dir = mkdtempSync(join(tmpdir(), "outpost-failover-"));
  // one after the other, so that the first holds the store lock
  for (const name of ["a", "b", "c"]) await startNode(name);
}, 240_000);

afterAll(async () => {
  for (const c of nodes.values()) await c.stop("SIGKILL");
  await db?.end();
  await pg?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("failover of the stores", () => {
  it("kill -9 of the active store node under pushes through the others: a standby takes over and nothing acknowledged is lost", async () => {
    expect(await pollUntil(async () => (await activeNode()) === "a")).toBe(true);
    const standbys = ["b", "c"].map((n) => nodes.get(n)!);
    const t0 = Date.now();
    const ackedLines: string[] = [];
    const ackedSamples: number[] = [];
    let refused = 0;
    let stop = false;
    let i = 0;
    /** a refused push is sent again later, as a shipper does (not at once: a failover takes a moment) */
    const refusedOnce = () => {
      refused++;
      return new Promise((r) => setTimeout(r, 50));
    };
    const pushLoop = async (which: number) => {
      while (!stop) {
        const n = i++;
        const via = standbys[n % 2]!.urls;
        if (which === 0) {
          const line = `line-${n}`;
          const r = await logClient(via.logs!).push("failover", [{ stream: { app: "failover" }, values: [[String(BigInt(t0 + n) * 1_000_000n), line]] }]).catch(() => ({ status: 0 }));
          if (r.status === 204) ackedLines.push(line);
          else await refusedOnce();
        } else {
          const r = await metricsClient(via.metrics!).push("failover", [{ labels: { __name__: "failover_seq" }, samples: [[t0 + n, n]] }]).catch(() => ({ status: 0 }));
          if (r.status === 200) ackedSamples.push(n);
          else await refusedOnce();
        }
      }
    };
    const loops = [pushLoop(0), pushLoop(1), pushLoop(0), pushLoop(1)];
    // a good run of acknowledged pushes first
    expect(await pollUntil(() => ackedLines.length >= 500 && ackedSamples.length >= 500)).toBe(true);
    const killedAt = Date.now();
    await nodes.get("a")!.stop("SIGKILL");
    expect(await pollUntil(async () => ["b", "c"].includes((await activeNode()) ?? ""), 60_000)).toBe(true);
    const newActive = (await activeNode())!;
    const tookOver = Date.now() - killedAt;
    // pushes go on through the standby that is left (and the new active node itself)
    const before = { lines: ackedLines.length, samples: ackedSamples.length };
    expect(await pollUntil(() => ackedLines.length >= before.lines + 200 && ackedSamples.length >= before.samples + 200)).toBe(true);
    stop = true;
    await Promise.all(loops);
    console.log(`failover: the store node ${newActive} took over ${tookOver} ms after the kill; ${ackedLines.length} lines and ${ackedSamples.length} samples acknowledged, ${refused} pushes refused meanwhile`);

    const active = nodes.get(newActive)!.urls;
    const lines = await logClient(active.logs!).get("/loki/api/v1/query_range", "failover", {
      query: '{app="failover"}', start: String(BigInt(t0 - 60_000) * 1_000_000n), end: String(BigInt(Date.now() + 60_000) * 1_000_000n), limit: "5000",
    });
    expect(lines.status).toBe(200);
    const found = new Set<string>();
    for (const s of lines.body.data.result as Array<{ values: Array<[string, string]> }>) for (const [, l] of s.values) found.add(l);
    expect(ackedLines.filter((l) => !found.has(l))).toEqual([]);

    const samples = await metricsClient(active.metrics!).query("failover", "failover_seq[1h]");
    expect(samples.status).toBe(200);
    const values = new Set(((samples.body as { data: { result: Array<{ values: Array<[number, string]> }> } }).data.result[0]?.values ?? []).map(([, v]) => Number(v)));
    expect(ackedSamples.filter((n) => !values.has(n))).toEqual([]);

    // the killed node starts again as a standby, and forwards to the active one
    const again = await startNode("a");
    expect(await pollUntil(async () => (await db.query("select store_active from cluster_nodes where name = 'a' and heartbeat_at > now() - interval '10 seconds'")).rows[0]?.store_active === false)).toBe(true);
    expect(await activeNode()).toBe(newActive);
    const through = await logClient(again.urls.logs!).push("failover", [{ stream: { app: "failover" }, values: [[String(BigInt(Date.now()) * 1_000_000n), "after the rejoin"]] }]);
    expect(through.status).toBe(204);
    ackedLines.push("after the rejoin");

    // a clean stop of the active node hands the stores over too: its last flush, then the lock
    expect(await nodes.get(newActive)!.stop("SIGTERM")).toBe(0);
    expect(await pollUntil(async () => !["", newActive].includes((await activeNode()) ?? ""), 60_000)).toBe(true);
    const third = nodes.get((await activeNode())!)!.urls;
    const afterHandover = await logClient(third.logs!).get("/loki/api/v1/query_range", "failover", {
      query: '{app="failover"}', start: String(BigInt(t0 - 60_000) * 1_000_000n), end: String(BigInt(Date.now() + 60_000) * 1_000_000n), limit: "5000",
    });
    const kept = new Set<string>();
    for (const s of afterHandover.body.data.result as Array<{ values: Array<[string, string]> }>) for (const [, l] of s.values) kept.add(l);
    expect(ackedLines.filter((l) => !kept.has(l))).toEqual([]);
  });
});
