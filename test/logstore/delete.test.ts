// The log store's delete API (issue 25; Loki's POST/GET/DELETE
// /loki/api/v1/delete): a password logged by mistake is filtered out of
// queries at once, removed from chunks, heads and the write-ahead log once the
// cancellation period has passed, and stays gone after a restart; the other
// lines of the same chunks, the other streams and the other tenants keep
// everything. Cancellation, tenant isolation, tokens mode, bad input and the
// deletion modes.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decodeColumns } from "../../src/apps/logstore/core/columns.ts";
import { pollUntil } from "../helpers/eventually.ts";
import { startTestServer, testClock, useServer, type TestServer } from "../helpers/server.ts";
import { ADMIN_TOKEN, adminApi, basic } from "../store-access/helpers.ts";
import { logClient } from "./helpers.ts";

const HOUR = 3_600_000;
const nsAt = (ms: number) => String(BigInt(ms) * 1_000_000n);
const unixSeconds = (ms: number) => String(Math.floor(ms / 1000));

/** the delete API of a log store, as curl calls it */
function deletes(base: string) {
  const call = async (method: string, tenant: string | undefined, params: Record<string, string>, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}/loki/api/v1/delete?${new URLSearchParams(params)}`, { method, headers: { ...(tenant === undefined ? {} : { "X-Scope-OrgID": tenant }), ...headers } });
    const text = await res.text();
    return { status: res.status, text, body: res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : undefined, headers: res.headers };
  };
  return {
    create: (tenant: string | undefined, params: Record<string, string>, headers?: Record<string, string>) => call("POST", tenant, params, headers),
    list: (tenant: string | undefined, headers?: Record<string, string>) => call("GET", tenant, {}, headers),
    cancel: (tenant: string | undefined, params: Record<string, string>, headers?: Record<string, string>) => call("DELETE", tenant, params, headers),
  };
}

/** every line a selector gives over the last two days, oldest first */
async function linesOf(server: TestServer, tenant: string, query: string, nowMs: number): Promise<string[]> {
  const r = await logClient(server.urls.logs!).get("/svc/api/v1/query_range", tenant, { query, direction: "forward", limit: "5000", start: nsAt(nowMs - 48 * HOUR), end: nsAt(nowMs + 1000) });
  expect(r.status).toBe(200);
  return (r.body.data.result as Array<{ values: string[][] }>).flatMap((s) => s.values).sort((a, b) => (BigInt(a[0]!) < BigInt(b[0]!) ? -1 : 1)).map((v) => v[1]!);
}

/** files under a folder, recursively */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** the lines of every chunk found in the segment files, live or not (chunk after chunk, and any dead space searched for the format's magic) */
function linesInSegments(dir: string): string[] {
  const out: string[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".seg"))) {
    const bytes = readFileSync(join(dir, f));
    for (let at = bytes.indexOf("OLC2"); at >= 0; at = bytes.indexOf("OLC2", at + 1)) {
      if (at + 40 > bytes.length) break;
      let total = 44;
      for (let i = 0; i < 5; i++) total += bytes.readUInt32LE(at + 16 + 4 * i);
      try {
        const c = decodeColumns(new Uint8Array(bytes.subarray(at, at + total)));
        const block = Buffer.from(c.lines);
        for (let i = 0; i < c.count; i++) out.push(block.toString("utf8", c.offsets[i]!, c.offsets[i + 1]!));
      } catch {
        // not a chunk's start
      }
    }
  }
  return out;
}

const counter = (text: string, name: string, labels: string) => Number(new RegExp(`^${name}\\{${labels}\\} (\\S+)$`, "m").exec(text)?.[1] ?? "NaN");

describe("log store: deleting a password logged by mistake", () => {
  const dir = mkdtempSync(join(tmpdir(), "outpost-log-delete-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const clock = testClock();
  const flags = {
    "storage.in_memory": false,
    "storage.data_dir": dir,
    "logs.compactor.delete_request_cancel_period": "1h",
    "logs.compactor.compaction_interval": "200ms",
  };

  it("filtered at once; removed from chunks, heads and the write-ahead log after the cancellation period; gone after a restart; nothing else lost", async () => {
    const t0 = clock.now();
    const apiLine = (i: number) => (i % 4 === 0 ? `user=u${i} password=hunter2 action=login` : `user=u${i} action=view`);
    const kept = (lines: string[]) => lines.filter((l) => !l.includes("password="));
    const first = await startTestServer(flags, clock);
    const api: string[] = [];
    let segmentsBefore: string[] = [];
    try {
      const logs = logClient(first.urls.logs!);
      // the first pushes go to chunks (their heads are cut once 5 minutes old)...
      const a = Array.from({ length: 40 }, (_, i) => apiLine(i));
      api.push(...a);
      expect((await logs.push("acme", [
        { stream: { app: "api" }, values: a.map((l, i): [string, string] => [nsAt(t0 - 30 * 60_000 + i * 1000), l]) },
        { stream: { app: "web" }, values: [[nsAt(t0 - 29 * 60_000), "user=w password=swordfish (another stream)"]] },
      ])).status).toBe(204);
      expect((await logs.push("other", [{ stream: { app: "api" }, values: [[nsAt(t0 - 29 * 60_000), "user=b password=letmein (another tenant)"]] }])).status).toBe(204);
      clock.advance(6 * 60_000);
      expect(await pollUntil(async () => (await logs.get("/svc/api/v1/index/stats", "acme", { query: '{app="api"}', start: nsAt(t0 - HOUR) })).body.chunks >= 1)).toBe(true);
      // ...the later ones stay in the head
      const b = Array.from({ length: 20 }, (_, i) => apiLine(i + 40));
      api.push(...b);
      expect((await logs.push("acme", [{ stream: { app: "api" }, values: b.map((l, i): [string, string] => [nsAt(t0 - 10 * 60_000 + i * 1000), l]) }])).status).toBe(204);

      const del = deletes(first.urls.logs!);
      const created = await del.create("acme", { query: '{app="api"} |= "password="', start: unixSeconds(t0 - HOUR) });
      expect(created.status).toBe(204);
      expect(created.text).toBe("");
      const listed = await del.list("acme");
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual([
        {
          request_id: expect.stringMatching(/^[0-9a-f]{8}$/),
          start_time: Number(unixSeconds(t0 - HOUR)),
          end_time: clock.now() / 1000,
          query: '{app="api"} |= "password="',
          status: "received",
          created_at: clock.now() / 1000,
          user_id: "acme",
        },
      ]);

      // pending: left out of log and metric queries at once, heads and chunks alike
      expect(await linesOf(first, "acme", '{app="api"}', clock.now())).toEqual(kept(api));
      expect(await linesOf(first, "acme", '{app="api"} |= "user="', clock.now())).toEqual(kept(api));
      const count = await logs.get("/svc/api/v1/query", "acme", { query: 'sum(count_over_time({app="api"}[2h]))', time: nsAt(clock.now()) });
      expect(count.body.data.result[0].value[1]).toBe(String(kept(api).length));
      expect(await linesOf(first, "acme", '{app="web"}', clock.now())).toEqual(["user=w password=swordfish (another stream)"]);
      expect(await linesOf(first, "other", '{app="api"}', clock.now())).toEqual(["user=b password=letmein (another tenant)"]);
      segmentsBefore = readdirSync(join(dir, "logs-chunks")).filter((f) => f.endsWith(".seg"));
      expect(segmentsBefore.length).toBeGreaterThan(0);
      // the write-ahead log holds the pushes as they came
      expect(filesUnder(join(dir, "logs-wal")).some((f) => readFileSync(f).includes("hunter2"))).toBe(true);

      // past the cancellation period the request is processed
      clock.advance(2 * HOUR);
      expect(await pollUntil(async () => (await del.list("acme")).body[0]?.status === "processed")).toBe(true);
      expect(await linesOf(first, "acme", '{app="api"}', clock.now())).toEqual(kept(api));
      expect(await linesOf(first, "acme", '{app="api"} |= "password"', clock.now())).toEqual([]);
      expect(await linesOf(first, "acme", '{app="web"}', clock.now())).toEqual(["user=w password=swordfish (another stream)"]);
      expect(await linesOf(first, "other", '{app="api"}', clock.now())).toEqual(["user=b password=letmein (another tenant)"]);
      // the stored chunks hold what is left (index stats count stored lines, not filtered ones)
      const stats = await logs.get("/svc/api/v1/index/stats", "acme", { query: '{app="api"}', start: nsAt(t0 - HOUR), end: nsAt(clock.now()) });
      expect(stats.body.entries).toBe(kept(api).length);
      // no file under the data dir holds the password as pushed (the write-ahead log started over)
      for (const f of filesUnder(dir)) expect(readFileSync(f).includes("hunter2"), f).toBe(false);

      const metrics = (await logs.get("/metrics", undefined)).text;
      expect(counter(metrics, "svc_compactor_delete_requests_received_total", 'user="acme"')).toBe(1);
      expect(counter(metrics, "svc_compactor_delete_requests_processed_total", 'user="acme"')).toBe(1);
      expect(counter(metrics, "svc_compactor_deleted_lines", 'user="acme"')).toBe(api.length - kept(api).length);
      expect(metrics).toMatch(/^svc_compactor_pending_delete_requests_count 0$/m);
      // audited: tenant, request, query and range; never the lines
      const audit = first.logs.filter((l) => String(l.msg).startsWith("log delete request"));
      expect(audit.map((l) => l.msg)).toEqual(expect.arrayContaining(["log delete request received", "log delete request processed"]));
      expect(audit.find((l) => l.msg === "log delete request processed")).toMatchObject({ tenant: "acme", request_id: listed.body[0].request_id, selector: '{app="api"}', filters: 1, deleted_lines: 15 });
      // the request's line filter (often the secret itself) is never logged
      expect(JSON.stringify(audit)).not.toContain("password=");
      expect(JSON.stringify(first.logs)).not.toContain("hunter2");

      // a processed request is not cancelled
      const late = await del.cancel("acme", { request_id: listed.body[0].request_id, force: "true" });
      expect(late.status).toBe(400);
      expect(late.text).toBe("deletion of request which is in process or already processed is not allowed\n");
    } finally {
      await first.stop();
    }

    // the segment files that held the password are gone (a clean stop removes what waited for its grace period);
    // what is left decodes without it, every other line still there
    const segmentsAfter = readdirSync(join(dir, "logs-chunks")).filter((f) => f.endsWith(".seg"));
    expect(segmentsAfter.filter((f) => segmentsBefore.includes(f))).toEqual([]);
    const stored = linesInSegments(join(dir, "logs-chunks"));
    expect(stored.filter((l) => l.includes("hunter2"))).toEqual([]);
    for (const l of kept(api)) expect(stored).toContain(l);
    for (const f of filesUnder(dir)) expect(readFileSync(f).includes("hunter2"), f).toBe(false);

    const second = await startTestServer(flags, clock);
    try {
      expect(await linesOf(second, "acme", '{app="api"}', clock.now())).toEqual(kept(api));
      expect(await linesOf(second, "acme", '{app="web"}', clock.now())).toEqual(["user=w password=swordfish (another stream)"]);
      expect(await linesOf(second, "other", '{app="api"}', clock.now())).toEqual(["user=b password=letmein (another tenant)"]);
      const listed = await deletes(second.urls.logs!).list("acme");
      expect(listed.body).toMatchObject([{ status: "processed", query: '{app="api"} |= "password="', user_id: "acme" }]);
    } finally {
      await second.stop();
    }
  }, 120_000);

  it("a pending request survives a restart: still listed and filtered, then processed", async () => {
    const first = await startTestServer(flags, clock);
    let id: string;
    try {
      expect((await logClient(first.urls.logs!).push("later", [{ stream: { app: "p" }, values: [[nsAt(clock.now() - 60_000), "ssn=123-45-6789"], [nsAt(clock.now() - 59_000), "kept"]] }])).status).toBe(204);
      expect((await deletes(first.urls.logs!).create("later", { query: '{app="p"} |~ "ssn=[0-9-]+"', start: unixSeconds(clock.now() - HOUR) })).status).toBe(204);
      id = (await deletes(first.urls.logs!).list("later")).body[0].request_id;
    } finally {
      await first.stop();
    }
    const second = await startTestServer(flags, clock);
    try {
      expect((await deletes(second.urls.logs!).list("later")).body).toMatchObject([{ request_id: id, status: "received" }]);
      expect(await linesOf(second, "later", '{app="p"}', clock.now())).toEqual(["kept"]);
      clock.advance(2 * HOUR);
      expect(await pollUntil(async () => (await deletes(second.urls.logs!).list("later")).body[0]?.status === "processed")).toBe(true);
      expect(await linesOf(second, "later", '{app="p"}', clock.now())).toEqual(["kept"]);
    } finally {
      await second.stop();
    }
  }, 120_000);
});

describe("log store delete requests: cancellation, tenants, bad input", () => {
  // processing runs every 10 minutes (the default): none happens during these tests
  const clock = testClock();
  const t = useServer({ "logs.compactor.delete_request_cancel_period": "1h" }, clock);
  const push = (tenant: string, app: string, lines: string[]) =>
    logClient(t.server.urls.logs!).push(tenant, [{ stream: { app }, values: lines.map((l, i): [string, string] => [nsAt(clock.now() - 60_000 + i), l]) }]);

  it("cancelled within its cancellation period: 204, no longer listed, its lines back in answers; audited", async () => {
    expect((await push("acme", "c1", ["a secret=1", "b"])).status).toBe(204);
    const del = deletes(t.server.urls.logs!);
    expect((await del.create("acme", { query: '{app="c1"} |= "secret"', start: unixSeconds(clock.now() - HOUR) })).status).toBe(204);
    expect(await linesOf(t.server, "acme", '{app="c1"}', clock.now())).toEqual(["b"]);
    const [r] = (await del.list("acme")).body;
    clock.advance(30 * 60_000);
    const cancelled = await del.cancel("acme", { request_id: r.request_id });
    expect(cancelled.status).toBe(204);
    expect((await del.list("acme")).body.map((x: { request_id: string }) => x.request_id)).not.toContain(r.request_id);
    expect(await linesOf(t.server, "acme", '{app="c1"}', clock.now())).toEqual(["a secret=1", "b"]);
    expect(t.server.logs.find((l) => l.msg === "log delete request cancelled" && l.request_id === r.request_id)).toMatchObject({ tenant: "acme", selector: '{app="c1"}', filters: 1, force: false });
  });

  it("past its cancellation period: refused without force (Loki's 400), cancelled with force=true; an unknown id is 404", async () => {
    const del = deletes(t.server.urls.logs!);
    expect((await del.create("acme", { query: '{app="c2"}', start: unixSeconds(clock.now() - HOUR) })).status).toBe(204);
    const r = (await del.list("acme")).body.at(-1);
    clock.advance(HOUR + 1000);
    const refused = await del.cancel("acme", { request_id: r.request_id });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(refused.text).toBe(
      "Cancellation of partially completed delete request or delete request past the deadline of 1h0m0s since its creation is not allowed. To force, use the ?force query parameter\n",
    );
    expect((await del.cancel("acme", { request_id: r.request_id, force: "true" })).status).toBe(204);
    const unknown = await del.cancel("acme", { request_id: r.request_id });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toBe("could not find delete request with given id\n");
    expect((await del.cancel("acme", {})).status).toBe(404);
  });

  it("scoped to the tenant: another tenant neither sees nor cancels a request, and keeps its own matching lines", async () => {
    expect((await push("a1", "iso", ["token=abc one", "two"])).status).toBe(204);
    expect((await push("b1", "iso", ["token=abc one", "two"])).status).toBe(204);
    const del = deletes(t.server.urls.logs!);
    expect((await del.create("a1", { query: '{app="iso"} |= "token="', start: unixSeconds(clock.now() - HOUR) })).status).toBe(204);
    const [r] = (await del.list("a1")).body;
    expect((await del.list("b1")).body).toEqual([]);
    expect((await del.cancel("b1", { request_id: r.request_id })).status).toBe(404);
    expect(await linesOf(t.server, "a1", '{app="iso"}', clock.now())).toEqual(["two"]);
    expect(await linesOf(t.server, "b1", '{app="iso"}', clock.now())).toEqual(["token=abc one", "two"]);
    expect((await del.list("a1")).body).toHaveLength(1);
  });

  it("bad input: 400 with the real product's message naming the field; no tenant: 401", async () => {
    const del = deletes(t.server.urls.logs!);
    const now = clock.now();
    const start = unixSeconds(now - HOUR);
    const cases: Array<[Record<string, string>, string]> = [
      [{ start }, "query not set"],
      [{ query: "", start }, "query not set"],
      [{ query: 'count_over_time({app="x"}[1m])', start }, "invalid query expression: parse error : only log selector is supported"],
      [{ query: '{app=~".*"}', start }, "invalid query expression: parse error : queries require at least one regexp or equality matcher that does not have an empty-compatible value."],
      [{ query: '{app="x"', start }, "invalid query expression: parse error at line 1"],
      [{ query: '{app="x"} |~ "(unclosed"', start }, "invalid query expression: parse error : error parsing regexp"],
      [{ query: '{app="x"}' }, "start time not set"],
      [{ query: '{app="x"}', start: "yesterday" }, "invalid start time: require unix seconds or RFC3339 format"],
      [{ query: '{app="x"}', start: String(now - HOUR) }, "invalid start time: require unix seconds or RFC3339 format"],
      [{ query: '{app="x"}', start: "-1e9999999" }, "invalid start time: require unix seconds or RFC3339 format"],
      [{ query: '{app="x"}', start, end: "soon" }, "invalid end time: require unix seconds or RFC3339 format"],
      [{ query: '{app="x"}', start, end: unixSeconds(now + HOUR) }, "deletes in the future are not allowed"],
      [{ query: '{app="x"}', start, end: start }, "start time can't be greater than or equal to end time"],
      [{ query: '{app="x"}', start: unixSeconds(now - 60_000), end: unixSeconds(now - HOUR) }, "start time can't be greater than or equal to end time"],
      [{ query: '{app="x"} |= "y"', start, max_interval: "1d" }, "invalid max_interval: valid time units are 's', 'm', 'h'"],
      [{ query: '{app="x"} |= "y"', start, max_interval: "500ms" }, "invalid max_interval: valid time units are 's', 'm', 'h'"],
      [{ query: '{app="x"} |= "y"', start: unixSeconds(now - 72 * HOUR), max_interval: "48h" }, "max_interval can't be greater than 24h0m0s"],
      [{ query: '{app="x"} |= "y"', start, end: unixSeconds(now - 30 * 60_000), max_interval: "45m" }, "max_interval can't be greater than the interval to be deleted (30m0s)"],
    ];
    for (const [params, message] of cases) {
      const r = await del.create("acme", params);
      expect(r.status, JSON.stringify(params)).toBe(400);
      expect(r.text.startsWith(message), `${JSON.stringify(params)}: ${r.text}`).toBe(true);
    }
    // accepted: RFC 3339 times, a max_interval within bounds, and one a request without filters does not read
    const iso = (ms: number) => new Date(ms).toISOString();
    expect((await del.create("bad-input", { query: '{app="x"} |= "y"', start: iso(now - 2 * HOUR), end: iso(now - HOUR), max_interval: "30m" })).status).toBe(204);
    expect((await del.create("bad-input", { query: '{app="x"}', start, max_interval: "whatever" })).status).toBe(204);
    expect((await del.list("bad-input")).body.map((r: { start_time: number; end_time: number }) => [r.start_time, r.end_time])).toEqual([
      [(now - 2 * HOUR) / 1000, (now - HOUR) / 1000],
      [Number(start), now / 1000],
    ]);
    const anonymous = await del.create(undefined, { query: '{app="x"}', start });
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).toBe("no org id\n");
    // Loki's own path and this store's answer the same
    const svc = await fetch(`${t.server.urls.logs}/svc/api/v1/delete`, { headers: { "X-Scope-OrgID": "bad-input" } });
    expect(((await svc.json()) as unknown[]).length).toBe(2);
  });
});

describe("log store delete requests: processing without a data dir, deletion modes per tenant", () => {
  const dir = mkdtempSync(join(tmpdir(), "outpost-log-delete-modes-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "runtime.yaml");
  writeFileSync(file, "overrides:\n  lax:\n    deletion_mode: filter-only\n  off:\n    deletion_mode: disabled\n");
  const clock = testClock();
  const t = useServer(
    { "logs.compactor.delete_request_cancel_period": "1h", "logs.compactor.compaction_interval": "200ms", "logs.runtime_config_file": file },
    clock,
  );

  it("a request without filters removes its streams' lines in its range only, in memory too", async () => {
    const now = clock.now();
    const at = (minutesAgo: number) => now - minutesAgo * 60_000;
    const logs = logClient(t.server.urls.logs!);
    expect((await logs.push("range", [
      { stream: { app: "r", env: "prod" }, values: [[nsAt(at(50)), "fifty"], [nsAt(at(30)), "thirty"], [nsAt(at(10)), "ten"]] },
      { stream: { app: "r", env: "dev" }, values: [[nsAt(at(30)), "dev thirty"]] },
      // a stream all of whose entries are in the range: its chunk goes without being read
      { stream: { app: "r", env: "prod", zone: "b" }, values: [[nsAt(at(35)), "b thirty-five"], [nsAt(at(25)), "b twenty-five"]] },
    ])).status).toBe(204);
    const del = deletes(t.server.urls.logs!);
    const iso = (ms: number) => new Date(ms).toISOString();
    expect((await del.create("range", { query: '{app="r", env="prod"}', start: iso(at(40)), end: iso(at(20)) })).status).toBe(204);
    expect(await linesOf(t.server, "range", '{app="r"}', clock.now())).toEqual(["fifty", "dev thirty", "ten"]);
    clock.advance(2 * HOUR);
    expect(await pollUntil(async () => (await del.list("range")).body[0]?.status === "processed")).toBe(true);
    expect(await linesOf(t.server, "range", '{app="r"}', clock.now())).toEqual(["fifty", "dev thirty", "ten"]);
    const stats = await logs.get("/svc/api/v1/index/stats", "range", { query: '{app="r"}', start: nsAt(now - HOUR), end: nsAt(clock.now()) });
    expect(stats.body.entries).toBe(3);
  });

  it("a label filter on structured metadata: only the entries it keeps go; the others keep their metadata", async () => {
    const logs = logClient(t.server.urls.logs!);
    const now = clock.now();
    expect((await logs.push("meta", [{
      stream: { app: "sm" },
      values: [[nsAt(now - 3000), "login", { user: "alice" }], [nsAt(now - 2000), "login", { user: "bob" }], [nsAt(now - 1000), "logout", { user: "alice" }]],
    }])).status).toBe(204);
    const del = deletes(t.server.urls.logs!);
    expect((await del.create("meta", { query: '{app="sm"} | user="alice"', start: unixSeconds(now - HOUR) })).status).toBe(204);
    expect(await linesOf(t.server, "meta", '{app="sm"}', clock.now())).toEqual(["login"]);
    clock.advance(2 * HOUR);
    expect(await pollUntil(async () => (await del.list("meta")).body[0]?.status === "processed")).toBe(true);
    expect(await linesOf(t.server, "meta", '{app="sm"} | user="bob"', clock.now())).toEqual(["login"]);
    expect(await linesOf(t.server, "meta", '{app="sm"}', clock.now())).toEqual(["login"]);
  });

  it("deletion_mode disabled: the three endpoints answer 403 as the real product", async () => {
    const del = deletes(t.server.urls.logs!);
    for (const r of [await del.create("off", { query: '{app="x"}', start: unixSeconds(clock.now() - HOUR) }), await del.list("off"), await del.cancel("off", { request_id: "00000000" })]) {
      expect(r.status).toBe(403);
      expect(r.text).toBe("deletion is not available for this tenant\n");
    }
  });

  it("deletion_mode filter-only: lines are left out of answers but never removed from storage", async () => {
    const logs = logClient(t.server.urls.logs!);
    expect((await logs.push("lax", [{ stream: { app: "f" }, values: [[nsAt(clock.now() - 60_000), "card=4111"], [nsAt(clock.now() - 59_000), "fine"]] }])).status).toBe(204);
    const del = deletes(t.server.urls.logs!);
    expect((await del.create("lax", { query: '{app="f"} |~ "card=[0-9]+"', start: unixSeconds(clock.now() - HOUR) })).status).toBe(204);
    clock.advance(2 * HOUR);
    // passes run every 200 ms; a second is several of them (nothing to poll for: it must not happen)
    await new Promise((r) => setTimeout(r, 1500));
    expect((await del.list("lax")).body[0].status).toBe("received");
    expect(await linesOf(t.server, "lax", '{app="f"}', clock.now())).toEqual(["fine"]);
    const stats = await logs.get("/svc/api/v1/index/stats", "lax", { query: '{app="f"}', start: nsAt(clock.now() - 3 * HOUR), end: nsAt(clock.now()) });
    expect(stats.body.entries).toBe(2);
  });
});

describe("log store delete requests in tokens mode", () => {
  const t = useServer({ "logs.auth.type": "tokens", "metrics.auth.type": "tokens", "metrics.admin_token": ADMIN_TOKEN });

  it("needs the logs:delete scope for the tenant; logs:read and logs:write are not enough", async () => {
    const admin = adminApi(t.server.urls.metrics!);
    await admin.policy("deleter", ["team-a"], ["logs:delete"]);
    await admin.policy("writer", ["team-a"], ["logs:read", "logs:write"]);
    const deleter = { Authorization: basic("team-a", await admin.token("deleter", "deleter")) };
    const writer = { Authorization: basic("team-a", await admin.token("writer", "writer")) };
    const del = deletes(t.server.urls.logs!);
    const params = { query: '{app="x"}', start: unixSeconds(Date.now() - HOUR) };
    expect((await del.create(undefined, params, deleter)).status).toBe(204);
    const refused = await del.create(undefined, params, writer);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("does not grant the scope logs:delete");
    expect((await del.list(undefined, writer)).status).toBe(403);
    const listed = await del.list(undefined, deleter);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject([{ user_id: "team-a", status: "received" }]);
    expect((await del.cancel(undefined, { request_id: listed.body[0].request_id }, writer)).status).toBe(403);
    expect((await del.cancel(undefined, { request_id: listed.body[0].request_id }, deleter)).status).toBe(204);
    expect((await del.list(undefined)).status).toBe(401);
  });
});
