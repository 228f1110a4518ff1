// outpost backup and outpost restore through the CLI, against a server run
// from the source under Bun (issue 25): a restored server answers every API as
// the original did at the backup and holds nothing written after it; under a
// write load on all three APIs during the backup no write is refused, and the
// restored data is exactly a prefix of each sequence of acknowledged writes
// (nothing lost before the snapshot's moment, no gap, nothing after); the
// secret key is in the archive only when asked for, and then opens the sealed
// secrets; a service account made a server admin backs up with its token.
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { encodeWriteRequest } from "../../src/apps/metrics/core/remote-write.ts";
import { bunBin, repoRoot } from "../helpers/paths.ts";
import { freePortArgs, runCli, startChild, type Child } from "../helpers/process.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";
import { ADMIN_AUTH, readAll, TENANT, writeAll, type Urls } from "../helpers/three-apis.ts";

const tempDir = tempDirs("outpost-backup-cli-");
const main = join(repoRoot, "src", "main.ts");

const children: Child[] = [];
afterAll(async () => {
  for (const c of children) await c.stop("SIGKILL");
});

async function serve(dataDir: string, extra: string[] = []): Promise<Child & { all: Urls }> {
  const child = await startChild(bunBin, [main, "serve", "--data-dir", dataDir, ...freePortArgs, "--logs-retention-period", "0s", "--metrics-retention-period", "0s", ...extra], { cwd: tempDir() });
  children.push(child);
  return Object.assign(child, { all: { dashboard: child.urls.dashboard!, logs: child.urls.logs!, metrics: child.urls.metrics! } });
}

const backupEnv = { OUTPOST_PASSWORD: "admin" };

describe("outpost backup and outpost restore", () => {
  it("a restored server answers the reads as the original did at the backup; what was written after is not there", async () => {
    const dir = tempDir();
    const original = await serve(join(dir, "a"));
    const t0 = Math.floor((Date.now() - 20 * 60_000) / 1000) * 1000;
    await writeAll(original.all, "before", t0);
    const answers = await readAll(original.all, t0);
    // something of each store is in the answers (not a comparison of empty lists)
    expect(JSON.stringify(answers)).toContain("line 49 of before");
    expect(JSON.stringify(answers)).toContain("dash-before");

    const archive = join(dir, "backup.tar.gz");
    const made = await runCli(["backup", "--to", archive, "--url", original.all.dashboard], backupEnv);
    expect(made.stderr).toMatch(/no secret key/);
    expect(made.status).toBe(0);
    expect(made.stdout).toMatch(/backup\.tar\.gz: [\d.]+ MiB, \d+ files .*database held \d+ ms, secret key excluded/);
    // the server's copy is deleted once downloaded and checked
    expect(readdirSync(join(dir, "a", "backups"))).toEqual([]);

    await writeAll(original.all, "after", t0 + 60_000);
    expect(JSON.stringify(await readAll(original.all, t0))).toContain("dash-after");

    const restoredDir = join(dir, "b");
    const restored = await runCli(["restore", "--from", archive, "--data-dir", restoredDir]);
    expect(restored.status).toBe(0);
    expect(restored.stdout).toMatch(/^restored .* into .*: \d+ files, [\d.]+ MiB in [\d.]+ s$/m);
    expect(restored.stderr).toMatch(/warning: the archive holds no secret key .* copy secret\.key from the original data dir/);
    // what the warning says to do
    copyFileSync(join(dir, "a", "secret.key"), join(restoredDir, "secret.key"));
    const again = await serve(restoredDir);
    expect(await readAll(again.all, t0)).toEqual(answers);
    await again.stop();
  });

  it("under a write load on all three APIs during the backup, no write is refused and the restored data is a prefix of each sequence (no gap, nothing after)", async () => {
    const dir = tempDir();
    // no rate limit in the way: the load is as fast as the machine takes it
    const flags = ["--logs-ingestion-rate-mb", "1000", "--logs-ingestion-burst-size-mb", "1000"];
    const base = Math.floor((Date.now() - 30 * 60_000) / 1000) * 1000;
    // data from before a restart: the metrics store's checkpoint (written at the stop) and log chunks are in the backup too
    const first = await serve(join(dir, "a"), flags);
    await writeAll(first.all, "pre", base);
    expect(await first.stop()).toBe(0);
    const server = await serve(join(dir, "a"), flags);
    const line = "x".repeat(4000);
    const acked = { logs: 0, samples: 0, annotations: 0 };
    const failures: string[] = [];
    let slowest = 0;
    let stop = false;
    const timed = async (what: string, call: () => Promise<Response>, ok: number) => {
      const t = performance.now();
      const res = await call();
      slowest = Math.max(slowest, performance.now() - t);
      if (res.status !== ok) failures.push(`${what}: ${res.status} ${(await res.text()).slice(0, 200)}`);
      else await res.arrayBuffer();
      return res.status === ok;
    };
    // each API written in sequence (one loop each): what was acknowledged is 0..n-1, in order
    const logLoop = async () => {
      while (!stop) {
        const i = acked.logs;
        // 20 lines of 4 KB a push: a chunk (1 MiB) is cut and committed every ~13 pushes
        const values = Array.from({ length: 20 }, (_, k) => [`${BigInt(base + i) * 1_000_000n + BigInt(k)}`, `${i}.${k} ${line}`]);
        const body = JSON.stringify({ streams: [{ stream: { job: "load" }, values }] });
        if (await timed("log push", () => fetch(`${server.all.logs}/svc/api/v1/push`, { method: "POST", headers: { "X-Scope-OrgID": TENANT, "Content-Type": "application/json" }, body }), 204)) acked.logs++;
      }
    };
    const sampleLoop = async () => {
      while (!stop) {
        const i = acked.samples;
        const body = encodeWriteRequest({ timeseries: Array.from({ length: 10 }, (_, s) => ({ labels: [{ name: "__name__", value: "load_value" }, { name: "s", value: String(s) }], samples: [{ timestampMs: base + i * 100, value: i }] })) });
        const headers = { "X-Scope-OrgID": TENANT, "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy", "X-Prometheus-Remote-Write-Version": "0.1.0" };
        if (await timed("remote write", () => fetch(`${server.all.metrics}/api/v1/push`, { method: "POST", headers, body: body as BodyInit }), 200)) acked.samples++;
      }
    };
    const annotationLoop = async () => {
      while (!stop) {
        const i = acked.annotations;
        const body = JSON.stringify({ time: base + i, text: `load ${i}`, tags: ["load"] });
        if (await timed("annotation", () => fetch(`${server.all.dashboard}/api/annotations`, { method: "POST", headers: { Authorization: ADMIN_AUTH, "Content-Type": "application/json" }, body }), 200)) acked.annotations++;
      }
    };
    const loops = Promise.all([logLoop(), sampleLoop(), annotationLoop()]);
    await new Promise((r) => setTimeout(r, 3000));
    const before = { ...acked };
    const archive = join(dir, "load.tar.gz");
    const made = await runCli(["backup", "--to", archive, "--url", server.all.dashboard], backupEnv);
    const after = { ...acked };
    await new Promise((r) => setTimeout(r, 1000));
    stop = true;
    await loops;
    expect(made.stderr + made.stdout).toMatch(/secret key excluded/);
    expect(made.status).toBe(0);
    expect(failures).toEqual([]);
    const held = Number(/database held (\d+) ms/.exec(made.stdout)?.[1]);
    console.log(`backup under load: ${made.stdout.trim()}; slowest write during the test ${Math.round(slowest)} ms; writes before/after the backup: ${JSON.stringify(before)} ${JSON.stringify(after)}`);
    expect(held).toBeLessThan(10_000);

    const restoredDir = join(dir, "b");
    expect((await runCli(["restore", "--from", archive, "--data-dir", restoredDir])).status).toBe(0);
    copyFileSync(join(dir, "a", "secret.key"), join(restoredDir, "secret.key"));
    const again = await serve(restoredDir);
    const get = async (url: string, headers: Record<string, string>) => {
      const res = await fetch(url, { headers });
      expect(res.status).toBe(200);
      return (await res.json()) as { data: { result: Array<{ value?: [number, string]; values?: Array<[string, string]> }> } };
    };
    const tenant = { "X-Scope-OrgID": TENANT };
    const range = `start=${base - 3_600_000}000000&end=${base + 3_600_000}000000`;
    // log pushes: n pushes of 20 lines, none missing: count = 20 n, and the newest line is push n-1's last
    const count = await get(`${again.all.logs}/svc/api/v1/query?query=${encodeURIComponent('sum(count_over_time({job="load"}[2h]))')}&time=${base + 3_600_000}000000`, tenant);
    const lines = Number(count.data.result[0]?.value?.[1] ?? 0);
    const newest = await get(`${again.all.logs}/svc/api/v1/query_range?query=${encodeURIComponent('{job="load"}')}&${range}&limit=1&direction=backward`, tenant);
    const newestLine = newest.data.result[0]?.values?.[0]?.[1] ?? "";
    const pushes = lines / 20;
    expect(Number.isInteger(pushes)).toBe(true);
    expect(newestLine.startsWith(`${pushes - 1}.19 `)).toBe(true);
    // samples: n pushes, values 0..n-1 in each series
    const sampleCount = await get(`${again.all.metrics}/prometheus/api/v1/query?query=${encodeURIComponent("count_over_time(load_value[2h])")}&time=${(base + 3_600_000) / 1000}`, tenant);
    const sampleMax = await get(`${again.all.metrics}/prometheus/api/v1/query?query=${encodeURIComponent("max_over_time(load_value[2h])")}&time=${(base + 3_600_000) / 1000}`, tenant);
    expect(sampleCount.data.result.length).toBe(10);
    const samples = Number(sampleCount.data.result[0]!.value![1]);
    for (const r of sampleCount.data.result) expect(Number(r.value![1])).toBe(samples);
    for (const r of sampleMax.data.result) expect(Number(r.value![1])).toBe(samples - 1);
    // what was there before the restart
    const pre = await readAll(again.all, base);
    expect(JSON.stringify(pre)).toContain("line 49 of pre");
    expect((pre.samples as { data: { result: Array<{ values: Array<[number, string]> }> } }).data.result[0]!.values.at(-1)![1]).toBe("19");
    // annotations: texts load 0..n-1
    const notes = (await (await fetch(`${again.all.dashboard}/api/annotations?tags=load&limit=100000`, { headers: { Authorization: ADMIN_AUTH } })).json()) as Array<{ text: string }>;
    const numbers = notes.map((n) => Number(n.text.slice(5))).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i));
    // everything acknowledged before the backup began is there; nothing acknowledged after it ended
    for (const [what, n] of [["logs", pushes], ["samples", samples], ["annotations", numbers.length]] as const) {
      expect([what, n >= before[what]]).toEqual([what, true]);
      expect([what, n <= after[what]]).toEqual([what, true]);
    }
    await again.stop();
  });

  it("--include-secret-key: the restored server opens the sealed secrets without a key copied by hand; without it the archive has none", async () => {
    const dir = tempDir();
    const server = await serve(join(dir, "a"));
    // a data source whose sealed header the proxy sends to this listener
    const seen: string[] = [];
    const upstream = createServer((req, res) => {
      seen.push(String(req.headers["x-secret"]));
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ status: "success", data: [] }));
    });
    await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", () => r()));
    const port = (upstream.address() as AddressInfo).port;
    try {
      const created = await fetch(`${server.all.dashboard}/api/datasources`, {
        method: "POST",
        headers: { Authorization: ADMIN_AUTH, "Content-Type": "application/json" },
        body: JSON.stringify({ name: "sealed", uid: "sealed", type: "prometheus", access: "proxy", url: `http://127.0.0.1:${port}`, jsonData: { httpHeaderName1: "X-Secret" }, secureJsonData: { httpHeaderValue1: "the-sealed-value" } }),
      });
      expect(created.status).toBe(200);
      const withKey = join(dir, "with-key.tar.gz");
      const made = await runCli(["backup", "--to", withKey, "--url", server.all.dashboard, "--include-secret-key"], backupEnv);
      expect(made.status).toBe(0);
      expect(made.stdout).toMatch(/secret key included/);
      expect(made.stderr).not.toMatch(/no secret key/);
      const restored = await runCli(["restore", "--from", withKey, "--data-dir", join(dir, "b")]);
      expect(restored.status).toBe(0);
      expect(restored.stderr).toBe("");
      const again = await serve(join(dir, "b"));
      const proxied = await fetch(`${again.all.dashboard}/api/datasources/proxy/uid/sealed/api/v1/labels`, { headers: { Authorization: ADMIN_AUTH } });
      expect(proxied.status).toBe(200);
      expect(seen.at(-1)).toBe("the-sealed-value");
      await again.stop();

      const without = await runCli(["backup", "--to", join(dir, "without.tar.gz"), "--url", server.all.dashboard], backupEnv);
      expect([without.status, without.stderr]).toEqual([0, expect.any(String)]);
      expect((await runCli(["restore", "--from", join(dir, "without.tar.gz"), "--data-dir", join(dir, "c")])).status).toBe(0);
      expect(existsSync(join(dir, "c", "secret.key"))).toBe(false);
    } finally {
      upstream.close();
    }
  });

  it("a service account made a server admin (outpost admin create-token --server-admin) backs up with its token (--token-file); a wrong password -> exit 1, no file", async () => {
    const dir = tempDir();
    const dataDir = join(dir, "a");
    const first = await serve(dataDir);
    await first.stop();
    const token = await runCli(["admin", "create-token", "--data-dir", dataDir, "--name", "backup-job", "--server-admin"]);
    expect(token.status).toBe(0);
    const tokenFile = join(dir, "token");
    writeFileSync(tokenFile, token.stdout, { mode: 0o600 });
    const server = await serve(dataDir);
    const made = await runCli(["backup", "--to", join(dir, "by-token.tar.gz"), "--url", server.all.dashboard, "--token-file", tokenFile]);
    expect(made.status).toBe(0);
    expect(existsSync(join(dir, "by-token.tar.gz"))).toBe(true);

    const refused = await runCli(["backup", "--to", join(dir, "refused.tar.gz"), "--url", server.all.dashboard], { OUTPOST_PASSWORD: "wrong" });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/POST \/api\/admin\/backups: 401/);
    expect(existsSync(join(dir, "refused.tar.gz"))).toBe(false);
    const none = await runCli(["backup", "--to", join(dir, "none.tar.gz"), "--url", server.all.dashboard], { OUTPOST_PASSWORD: "", OUTPOST_TOKEN: "" });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/no credentials/);
    mkdirSync(join(dir, "exists.tar.gz"));
    expect((await runCli(["backup", "--to", join(dir, "exists.tar.gz"), "--url", server.all.dashboard], backupEnv)).status).toBe(2);
  });
});
