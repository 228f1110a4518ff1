// Debian's real Prometheus (2.42) scraping itself and sending remote_write
// with basic_auth (user name = tenant, password = an access policy token)
// into a metrics store in tokens mode (issue 22): the samples land in the
// token's tenant and in no other, a token of another tenant's policy is
// refused, Prometheus counts no failed samples or metadata, and the store
// counts the samples against the token. Skipped, saying so, where Prometheus
// is not installed (.ci/run installs Debian's package).
// What Debian's 2.42 sends (seen with a capturing server): User-Agent
// Prometheus/2.42.0+ds, Authorization: Basic, Content-Encoding: snappy,
// Content-Type: application/x-protobuf, X-Prometheus-Remote-Write-Version
// 0.1.0, and never a remote_write `headers:` block (parsed, shown in its
// /api/v1/status/config, not sent), so basic auth alone names the tenant here.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/browser.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";
import { useServer } from "../helpers/server.ts";
import { answer, basic, type Answer } from "../store-access/helpers.ts";

/** OUTPOST_PROMETHEUS, else /usr/bin/prometheus, else `prometheus` on PATH; undefined when none */
function findPrometheus(): string | undefined {
  const candidates = [process.env.OUTPOST_PROMETHEUS, "/usr/bin/prometheus", ...(process.env.PATH ?? "").split(delimiter).filter(Boolean).map((d) => join(d, "prometheus"))];
  return candidates.find((p): p is string => p !== undefined && p !== "" && existsSync(p));
}

const PROMETHEUS = findPrometheus();
const SKIPPED = "skipped: no prometheus binary (/usr/bin/prometheus or on PATH); apt-get install prometheus, as .ci/run does";
if (!PROMETHEUS) console.warn(`test/e2e/prometheus-remote-write.test.ts ${SKIPPED}`);

/** how long Prometheus may take to start, scrape and deliver its first batch on a loaded machine */
const ARRIVAL_DEADLINE_MS = 90_000;
const TEST_TIMEOUT_MS = 180_000;
const ADMIN_TOKEN = "outpost-e2e-admin-token-prometheus";
const QUERY = 'up{job="prometheus"}';

const call = async (url: string, init: RequestInit = {}): Promise<Answer> => answer(await fetch(url, init));

/** the samples of a metric in Prometheus' text format, each with its labels */
function samplesOf(exposition: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const found: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const line of exposition.split("\n")) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    found.push({ labels, value: Number(m[3]) });
  }
  return found;
}

/** stops a child: SIGTERM, then SIGKILL if it has not exited within a while */
function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

describe.skipIf(!PROMETHEUS)(`Prometheus remote_write with basic auth into a tokens-mode metrics store${PROMETHEUS ? "" : ` (${SKIPPED})`}`, () => {
  // the server and the temp dir in this block, Prometheus in the inner one: an inner block's
  // afterAll runs first under both runners (bun runs one block's afterAll hooks in the order
  // they were registered, vitest in reverse), so Prometheus stops while the store still answers
  // its last push and before its data dir goes
  const ctx = useServer({ "metrics.auth.type": "tokens", "metrics.admin_token": ADMIN_TOKEN });
  const tempDir = tempDirs("outpost-prometheus-");
  describe(`${PROMETHEUS ?? "prometheus"} scraping itself, remote_write as tenant-a`, () => {
    let metrics = "";
    let promUrl = "";
    let prometheus: ChildProcess | undefined;
    let promLog = "";
    let spawnError: Error | undefined;
    const secrets = { a: "", b: "" };

    const admin = (path: string, body: unknown) =>
      call(`${metrics}${path}`, {
        method: "POST",
        headers: { Authorization: basic("", ADMIN_TOKEN), "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    const query = (authorization: string | undefined) =>
      call(`${metrics}/prometheus/api/v1/query?${new URLSearchParams({ query: QUERY })}`, authorization === undefined ? {} : { headers: { Authorization: authorization } });
    /** Prometheus' own log, for a failure's message */
    const promTail = () => `prometheus log (last 4000 characters):\n${promLog.slice(-4000)}`;

    beforeAll(async () => {
      metrics = ctx.server.urls.metrics!;
      for (const [t, tenant] of [["a", "tenant-a"], ["b", "tenant-b"]] as const) {
        const policy = await admin("/admin/api/v3/accesspolicies", {
          name: `prom-${t}`,
          display_name: `Prometheus remote write for ${tenant}`,
          realms: [{ tenant }],
          scopes: ["metrics:write", "metrics:read"],
        });
        expect(policy.status, policy.text).toBe(200);
        const token = await admin("/admin/api/v3/tokens", { name: `prom-${t}-token`, access_policy: `prom-${t}` });
        expect(token.status, token.text).toBe(200);
        expect(typeof token.body?.token).toBe("string");
        secrets[t] = token.body.token as string;
      }

      const dir = tempDir();
      const port = await freePort();
      promUrl = `http://127.0.0.1:${port}`;
      const config = {
        global: { scrape_interval: "1s", evaluation_interval: "1s" },
        scrape_configs: [{ job_name: "prometheus", static_configs: [{ targets: [`127.0.0.1:${port}`] }] }],
        remote_write: [
          {
            url: `${metrics}/api/v1/push`,
            basic_auth: { username: "tenant-a", password: secrets.a },
            queue_config: { batch_send_deadline: "1s" },
            // metadata-only write requests too (every minute by default), so the test sees them
            metadata_config: { send_interval: "1s" },
          },
        ],
      };
      const configFile = join(dir, "prometheus.yml");
      writeFileSync(configFile, stringify(config));
      prometheus = spawn(PROMETHEUS!, [`--config.file=${configFile}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`], {
        cwd: dir,
        stdio: ["ignore", "pipe", "pipe"],
      });
      prometheus.stdout!.on("data", (d: Buffer) => (promLog += d.toString()));
      prometheus.stderr!.on("data", (d: Buffer) => (promLog += d.toString()));
      prometheus.on("error", (err) => (spawnError = err));
    });

    afterAll(async () => {
      if (prometheus) await stopChild(prometheus);
    });

    it(
      "Prometheus' own samples arrive in tenant-a (queried with tenant-a's token)",
      async () => {
        const deadline = Date.now() + ARRIVAL_DEADLINE_MS;
        let last: Answer | undefined;
        for (;;) {
          if (spawnError) throw new Error(`${PROMETHEUS} did not start: ${spawnError.message}`);
          if (prometheus!.exitCode !== null || prometheus!.signalCode !== null) {
            throw new Error(`prometheus exited (${prometheus!.exitCode ?? prometheus!.signalCode}) before its samples arrived\n${promTail()}`);
          }
          last = await query(basic("tenant-a", secrets.a));
          if (last.status === 200 && (last.body?.data?.result?.length ?? 0) > 0) break;
          if (Date.now() > deadline) {
            throw new Error(`no ${QUERY} sample in tenant-a after ${ARRIVAL_DEADLINE_MS} ms; last answer ${last.status}: ${last.text}\n${promTail()}`);
          }
          await new Promise((r) => setTimeout(r, 250));
        }
        expect(last.body.status).toBe("success");
        const [series] = last.body.data.result as Array<{ metric: Record<string, string>; value: [number, string] }>;
        expect(series!.metric).toMatchObject({ __name__: "up", job: "prometheus", instance: promUrl.slice("http://".length) });
        expect(series!.value[1]).toBe("1");
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "tenant-b's token sees none of them",
      async () => {
        const r = await query(basic("tenant-b", secrets.b));
        expect(r.status, r.text).toBe(200);
        expect(r.body.status).toBe("success");
        expect(r.body.data.result).toEqual([]);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "tenant-a as user name with tenant-b's token: 403; no credentials: 401",
      async () => {
        const wrong = await query(basic("tenant-a", secrets.b));
        expect(wrong.status, wrong.text).toBe(403);
        expect(wrong.text).toContain("does not reach tenant tenant-a");
        const none = await query(undefined);
        expect(none.status, none.text).toBe(401);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "Prometheus counts no failed samples or metadata, and the store counts tenant-a's samples against its token",
      async () => {
        // Prometheus' own counters, once it has sent metadata as well as samples
        const sent = (text: string, name: string) => samplesOf(text, name).reduce((sum, s) => sum + s.value, 0);
        const deadline = Date.now() + ARRIVAL_DEADLINE_MS;
        let own: Answer;
        for (;;) {
          own = await call(`${promUrl}/metrics`);
          expect(own.status).toBe(200);
          if (sent(own.text, "prometheus_remote_storage_metadata_total") > 0) break;
          if (Date.now() > deadline) throw new Error(`Prometheus sent no metadata in ${ARRIVAL_DEADLINE_MS} ms\n${promTail()}`);
          await new Promise((r) => setTimeout(r, 250));
        }
        expect(sent(own.text, "prometheus_remote_storage_samples_total")).toBeGreaterThan(0);
        // 0 or absent
        for (const name of ["prometheus_remote_storage_samples_failed_total", "prometheus_remote_storage_metadata_failed_total"]) {
          for (const s of samplesOf(own.text, name)) expect(s.value, `${name}${JSON.stringify(s.labels)}\n${promTail()}`).toBe(0);
        }
        const store = await call(`${metrics}/metrics`, { headers: { Authorization: basic("", ADMIN_TOKEN) } });
        expect(store.status, store.text).toBe(200);
        const received = samplesOf(store.text, "cortex_access_token_received_samples_total");
        const ofA = received.find((s) => s.labels.access_policy === "prom-a" && s.labels.token === "prom-a-token");
        expect(ofA?.value ?? 0, received.map((s) => JSON.stringify(s)).join("\n")).toBeGreaterThan(0);
        // tenant-b's token never wrote
        expect(received.find((s) => s.labels.token === "prom-b-token")).toBeUndefined();
      },
      TEST_TIMEOUT_MS,
    );
  });
});
