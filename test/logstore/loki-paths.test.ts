// Issue 21: the log store serves Loki's own paths (/loki/api/v1/*) as the
// same handlers as /svc/api/v1/*, so shippers and the real Loki data source
// work with their defaults; through the data source proxy a loki data source
// without a configured prefix takes them too (a Viewer's query is a read).
// winston-loki, a real shipper, pushes to its default /loki/api/v1/push.
import { afterAll, describe, expect, it } from "vitest";
import winston from "winston";
import LokiTransport from "winston-loki";
import { ADMIN } from "../helpers/api.ts";
import { POLL_DEADLINE_MS } from "../helpers/eventually.ts";
import { useServer } from "../helpers/server.ts";

const ns = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
const nowNs = () => ns(Date.now());

describe("Loki's paths on the log store", () => {
  const t = useServer({});
  const logs = () => t.server.urls.logs!;
  const get = (path: string, tenant = "loki-paths") => fetch(`${logs()}${path}`, { headers: { "X-Scope-OrgID": tenant } });
  const closers: Array<() => void> = [];
  afterAll(() => closers.forEach((c) => c()));

  async function lines(query: string, tenant: string): Promise<string[]> {
    const q = new URLSearchParams({ query, start: ns(Date.now() - 3_600_000), end: ns(Date.now() + 60_000), limit: "100" });
    const r = await get(`/loki/api/v1/query_range?${q}`, tenant);
    expect(r.status).toBe(200);
    const body = (await r.json()) as { data: { result: Array<{ values: Array<[string, string]> }> } };
    return body.data.result.flatMap((s) => s.values.map((v) => v[1]));
  }

  it("push, query_range, labels, label values, series and buildinfo answer under /loki/api/v1 as under /svc/api/v1", async () => {
    const push = await fetch(`${logs()}/loki/api/v1/push`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Scope-OrgID": "loki-paths" },
      body: JSON.stringify({ streams: [{ stream: { app: "aliased" }, values: [[nowNs(), "through the loki path"]] }] }),
    });
    expect(push.status).toBe(204);
    expect(await lines('{app="aliased"}', "loki-paths")).toEqual(["through the loki path"]);
    for (const path of ["/labels", "/label/app/values", `/series?match[]=${encodeURIComponent('{app="aliased"}')}`, "/status/buildinfo"]) {
      const viaLoki = await get(`/loki/api/v1${path}`);
      const viaSvc = await get(`/svc/api/v1${path}`);
      expect(viaLoki.status).toBe(200);
      expect(await viaLoki.json()).toEqual(await viaSvc.json());
    }
    expect((await get("/loki/api/v1/nonexistent")).status).toBe(404);
  });

  it("winston-loki with its default path and options: the lines arrive", async () => {
    const transport = new LokiTransport({
      host: logs(),
      labels: { app: "winston" },
      headers: { "X-Scope-OrgID": "winston" },
      interval: 0.2,
      replaceTimestamp: true,
      onConnectionError: (err: unknown) => console.error("winston-loki:", err),
    });
    const logger = winston.createLogger({ transports: [transport] });
    closers.push(() => logger.close());
    logger.info("hello from winston", { job: "e2e" });
    logger.warn("second line");
    const deadline = Date.now() + POLL_DEADLINE_MS;
    let got: string[] = [];
    while (Date.now() < deadline) {
      got = await lines('{app="winston"}', "winston");
      if (got.length >= 2) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(got.length).toBe(2);
    expect(got.join("\n")).toContain("hello from winston");
    expect(got.join("\n")).toContain("second line");
    await transport.flush();
  });

  it("the data source proxy takes /loki/api/v1 for a loki data source without a prefix: a Viewer's query is a read", async () => {
    const ds = await t.api.post("/api/datasources", { auth: ADMIN, body: { name: "own-logs", type: "loki", access: "proxy", url: logs(), jsonData: { tenantId: "loki-paths" } } });
    expect(ds.status).toBe(200);
    const viewer = await t.api.user("loki-path-viewer", "Viewer");
    const q = new URLSearchParams({ query: '{app="aliased"}', start: ns(Date.now() - 3_600_000), end: ns(Date.now() + 60_000) });
    const r = await t.api.get(`/api/datasources/proxy/uid/${ds.body.datasource.uid}/loki/api/v1/query_range?${q}`, { auth: viewer.auth });
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.body)).toContain("through the loki path");
  });
});
