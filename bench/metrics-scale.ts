// Issue 19: the metrics store at a million active series, against the compiled
// binary, beside VictoriaMetrics and Prometheus fed the same bytes in the same
// run. One generator: SERIES series (5 labels each, 1,000 metric names),
// ROUNDS rounds of one sample per series 15 s apart, pre-encoded once as
// remote-write bodies of 2,000 series (snappy protobuf) and sent 8 in flight
// to each receiver in turn. Then, on Outpost: resident memory per active
// series beyond the idle process; count({__name__=~".+"}) (time, RSS growth,
// and the latency of a one-series push to another tenant every 50 ms while it
// runs); the time to /ready after kill -9 and after SIGTERM, and the RSS
// then (1 s and 10 s after a kill -9's restart: a checkpoint of what was
// replayed is written meanwhile). Results are checked (the count equals SERIES, before and after each
// restart). Figures are printed, never asserted.
//
//   bun bench/metrics-scale.ts              1,000,000 series (METRICS_SCALE_SERIES=<n> or --series <n> for others)
//   bun bench/metrics-scale.ts --quick      100,000 series (what npm run bench runs unless METRICS_SCALE_SERIES is set)
//   BINARY=<path>                           another build of Outpost
//   RECEIVERS=outpost,victoria,prometheus   the receivers fed (those whose program is missing are skipped)
//   --crash-into <dir>                      feed Outpost with <dir> as its data dir, kill -9 it and stop there
//                                           (a data dir to profile recovery on)
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import snappy from "snappyjs";
import { percentile, report, rssMiB } from "./lib.ts";

const { values: flags } = parseArgs({ options: { quick: { type: "boolean" }, series: { type: "string" }, rounds: { type: "string" }, "crash-into": { type: "string" } } });
const SERIES = Number(flags.series ?? (flags.quick ? 100_000 : (process.env.METRICS_SCALE_SERIES ?? 1_000_000)));
const ROUNDS = Number(flags.rounds ?? 10);
if (!(SERIES >= 2000) || !(ROUNDS >= 2)) throw new Error("expected at least 2,000 series and 2 rounds");
const PER_BODY = 2000;
const IN_FLIGHT = 8;
const STEP_MS = 15_000;
const TENANT = "bench";
const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
if (!existsSync(binary)) throw new Error(`${binary} is missing: run npm run build first`);
const receivers = new Set((process.env.RECEIVERS ?? "outpost,victoria,prometheus").split(","));
const COUNT_QUERY = 'count({__name__=~".+"})';

console.log(`metrics-scale: ${SERIES.toLocaleString("en")} series x ${ROUNDS} rounds, ${PER_BODY} series a push, ${IN_FLIGHT} in flight, load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);

// ---- the generator: label bytes per series once, then one body per 2,000 series and round
const te = new TextEncoder();
function varint(out: number[], n: number): void {
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
}
function field(out: number[], tag: number, bytes: ArrayLike<number>): void {
  out.push(tag);
  varint(out, bytes.length);
  for (let i = 0; i < bytes.length; i++) out.push(bytes[i]!);
}
function labelBytes(i: number): Uint8Array {
  const labels: Array<[string, string]> = [
    ["__name__", `bench_metric_${i % 1000}`],
    ["instance", `host-${Math.floor(i / 100) % 10_000}.example.com:9100`],
    ["job", `job-${i % 10}`],
    ["region", `region-${i % 7}`],
    ["series", String(i)],
  ];
  const out: number[] = [];
  for (const [n, v] of labels) {
    const pair: number[] = [];
    field(pair, 10, te.encode(n));
    field(pair, 18, te.encode(v));
    field(out, 10, pair);
  }
  return new Uint8Array(out);
}
const f64 = new Float64Array(1);
const f64b = new Uint8Array(f64.buffer);
function sampleBytes(value: number, t: number): number[] {
  const out: number[] = [9];
  f64[0] = value;
  for (const b of f64b) out.push(b);
  out.push(16);
  varint(out, t);
  return out;
}
const startMs = Math.floor(Date.now() / 1000) * 1000 - ROUNDS * STEP_MS;
const tGen = performance.now();
const labelsOf: Uint8Array[] = Array.from({ length: SERIES }, (_, i) => labelBytes(i));
const rounds: Uint8Array[][] = [];
let wireBytes = 0;
const body = Buffer.alloc(PER_BODY * 256);
for (let r = 0; r < ROUNDS; r++) {
  const bodies: Uint8Array[] = [];
  for (let first = 0; first < SERIES; first += PER_BODY) {
    let at = 0;
    const put = (bytes: ArrayLike<number>) => {
      for (let k = 0; k < bytes.length; k++) body[at++] = bytes[k]!;
    };
    for (let i = first; i < Math.min(SERIES, first + PER_BODY); i++) {
      const labels = labelsOf[i]!;
      const sample = sampleBytes(i * 0.5 + r, startMs + r * STEP_MS);
      const ts: number[] = [];
      varint(ts, labels.length + 2 + sample.length);
      body[at++] = 10;
      put(ts);
      body.set(labels, at);
      at += labels.length;
      body[at++] = 18;
      body[at++] = sample.length;
      put(sample);
    }
    const compressed = snappy.compress(body.subarray(0, at)) as Uint8Array;
    wireBytes += compressed.length;
    bodies.push(compressed);
  }
  rounds.push(bodies);
}
labelsOf.length = 0;
console.log(`generator: ${ROUNDS} x ${rounds[0]!.length} bodies, ${(wireBytes / 1e6).toFixed(0)} MB on the wire, made in ${((performance.now() - tGen) / 1000).toFixed(1)} s`);

// ---- processes
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
function freePort(): number {
  return 20_000 + Math.floor(Math.random() * 20_000);
}
async function waitFor(url: string, deadlineMs: number, headers: Record<string, string> = {}): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < deadlineMs) {
    try {
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - t0;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  throw new Error(`${url} not ready after ${deadlineMs / 1000} s`);
}
function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(0);
    child.once("exit", () => resolve(performance.now() - t0));
    child.kill(signal);
  });
}

interface Receiver {
  name: string;
  pushUrl: string;
  queryUrl: string;
  headers: Record<string, string>;
  child: ChildProcess;
}

async function startOutpost(dataDir: string, port: number): Promise<{ child: ChildProcess; readyMs: number }> {
  const t0 = performance.now();
  const child = spawn(binary, [
    "serve", "--data-dir", dataDir, "--http-port", "0", "--no-logs", "--metrics-port", String(port), "--log-level", process.env.OUTPOST_LOG_LEVEL ?? "warn",
    "--metrics-ingestion-rate", "1000000000", "--metrics-ingestion-burst-size", "1000000000",
    "--metrics-max-global-series-per-user", "0", "--metrics-max-global-series-per-metric", "0",
  ], { stdio: ["ignore", "ignore", "inherit"] });
  child.once("exit", (code, signal) => { if (code) console.log(`outpost exited: ${code ?? signal}`); });
  await waitFor(`http://127.0.0.1:${port}/ready`, 600_000);
  return { child, readyMs: performance.now() - t0 };
}

// ---- feeding a receiver
interface IngestFigures { firstRound: number; laterRounds: number; overall: number; failures: number }
async function feed(r: Receiver): Promise<IngestFigures> {
  const perRound: number[] = [];
  let failures = 0;
  let failure = "";
  const t0 = performance.now();
  let later = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const bodies = rounds[round]!;
    const tr = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]! as Uint8Array<ArrayBuffer>;
        const res = await fetch(r.pushUrl, { method: "POST", body, headers: { ...r.headers, "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy", "X-Prometheus-Remote-Write-Version": "0.1.0" } });
        const text = await res.text();
        if (res.status >= 300) {
          failures++;
          failure ||= `${res.status} ${text.slice(0, 200)}`;
        }
      }
    }));
    const ms = performance.now() - tr;
    perRound.push((SERIES / ms) * 1000);
    if (round > 0) later += ms;
  }
  const total = performance.now() - t0;
  if (failures) console.log(`  ${r.name}: ${failures} failed pushes, the first: ${failure}`);
  return { firstRound: perRound[0]!, laterRounds: ((ROUNDS - 1) * SERIES * 1000) / later, overall: (ROUNDS * SERIES * 1000) / total, failures };
}

/** an instant query at the last round's time; its result's single value (count) and the time it took */
async function countQuery(r: Receiver): Promise<{ ms: number; value: number; status: number }> {
  const q = new URLSearchParams({ query: COUNT_QUERY, time: String((startMs + (ROUNDS - 1) * STEP_MS) / 1000) });
  const t0 = performance.now();
  const res = await fetch(`${r.queryUrl}?${q}`, { headers: r.headers });
  const text = await res.text();
  const ms = performance.now() - t0;
  let value = NaN;
  try {
    value = Number((JSON.parse(text) as { data: { result: Array<{ value: [number, string] }> } }).data.result[0]?.value[1]);
  } catch {
    console.log(`  ${r.name} count: ${res.status} ${text.slice(0, 200)}`);
  }
  return { ms, value, status: res.status };
}

/** RSS sampled every 20 ms while `work` runs: the peak (MiB) */
async function peakRss<T>(pid: number, work: Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = rssMiB(pid);
  let done = false;
  const sampler = (async () => {
    while (!done) {
      peak = Math.max(peak, rssMiB(pid));
      await sleep(20);
    }
  })();
  const result = await work.finally(() => { done = true; });
  await sampler;
  return { result, peak: Math.max(peak, rssMiB(pid)) };
}

/** a push of one sample of the series {__name__="probe"} */
function probeBody(t: number): Uint8Array<ArrayBuffer> {
  const pair: number[] = [];
  field(pair, 10, te.encode("__name__"));
  field(pair, 18, te.encode("probe"));
  const ts: number[] = [];
  field(ts, 10, pair);
  field(ts, 18, sampleBytes(1, t));
  const out: number[] = [];
  field(out, 10, ts);
  return snappy.compress(new Uint8Array(out)) as Uint8Array<ArrayBuffer>;
}

/** a one-series push to another tenant every 50 ms while `work` runs: each one's latency (ms) */
async function probePushes<T>(pushUrl: string, work: Promise<T>): Promise<{ result: T; latencies: number[] }> {
  const latencies: number[] = [];
  let done = false;
  let t = Date.now();
  const prober = (async () => {
    while (!done) {
      const body = probeBody(t++);
      const t0 = performance.now();
      const res = await fetch(pushUrl, { method: "POST", body, headers: { "X-Scope-OrgID": "probe", "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy" } });
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
      await sleep(50);
    }
  })();
  const result = await work.finally(() => { done = true; });
  await prober;
  return { result, latencies };
}

const fmt = (n: number) => Math.round(n).toLocaleString("en");
const ingestFigures: Record<string, IngestFigures & { rssMiB: number }> = {};

async function runOutpost(): Promise<void> {
  const crashInto = flags["crash-into"];
  const dir = crashInto ?? mkdtempSync(join(tmpdir(), "outpost-metrics-scale-"));
  const port = freePort();
  try {
    let { child } = await startOutpost(join(dir, "data"), port);
    const r: Receiver = { name: "outpost", pushUrl: `http://127.0.0.1:${port}/api/v1/push`, queryUrl: `http://127.0.0.1:${port}/prometheus/api/v1/query`, headers: { "X-Scope-OrgID": TENANT }, child };
    await sleep(1000);
    const idle = rssMiB(child.pid);
    const ingest = await feed(r);
    if (crashInto) {
      await stop(child, "SIGKILL");
      console.log(`outpost: fed and killed; its data dir is ${join(dir, "data")}`);
      process.exit(0);
    }
    await sleep(2000);
    const after = rssMiB(child.pid);
    ingestFigures.outpost = { ...ingest, rssMiB: after };
    const perSeries = ((after - idle) * 1048576) / SERIES;
    console.log(`outpost: ingest ${fmt(ingest.firstRound)} samples/s first round, ${fmt(ingest.laterRounds)} later, ${fmt(ingest.overall)} overall; RSS ${fmt(idle)} MiB idle, ${fmt(after)} MiB after: ${fmt(perSeries)} bytes per active series`);
    report.figure("outpost ingest, first round (creating the series)", ingest.firstRound, "samples/s", ">= 150000");
    report.figure("outpost ingest, later rounds", ingest.laterRounds, "samples/s", ">= 300000");
    report.figure("outpost RSS after ingest", after, "MiB", SERIES >= 1_000_000 ? "<= 2500" : null, { idleMiB: idle });
    report.figure("outpost memory per active series beyond idle", perSeries, "bytes", SERIES >= 1_000_000 ? "<= 2048" : null);

    const rssBefore = rssMiB(child.pid);
    const { result: { result: count, peak }, latencies } = await probePushes(`http://127.0.0.1:${port}/api/v1/push`, peakRss(child.pid!, countQuery(r)));
    if (count.value !== SERIES) console.log(`  count answered ${count.value} (status ${count.status}), expected ${SERIES}`);
    console.log(`outpost: ${COUNT_QUERY} ${fmt(count.ms)} ms (= ${count.value}), RSS +${fmt(peak - rssBefore)} MiB; probe push p99 ${fmt(percentile(latencies, 99))} ms, max ${fmt(Math.max(...latencies))} ms (${latencies.length} pushes)`);
    report.figure("outpost count({__name__=~\".+\"})", count.ms, "ms", "<= 2000", { result: count.value });
    report.figure("outpost RSS growth during the count", peak - rssBefore, "MiB", "<= 500");
    report.figure("outpost probe push during the count, max", Math.max(...latencies), "ms", "<= 100", { p99: percentile(latencies, 99), pushes: latencies.length });
    const second = await countQuery(r);
    console.log(`outpost: the count again ${fmt(second.ms)} ms`);
    report.figure("outpost count, again", second.ms, "ms");

    // kill -9: everything acknowledged must come back
    const rssBeforeKill = rssMiB(child.pid);
    await stop(child, "SIGKILL");
    ({ child } = await startOutpost(join(dir, "data"), port).then((s) => { console.log(`outpost: ready ${fmt(s.readyMs)} ms after kill -9`); report.figure("outpost ready after kill -9", s.readyMs, "ms", "<= 15000"); return s; }));
    r.child = child;
    await sleep(1000);
    // at once (the checkpoint of what was replayed is being written then), and once it has settled
    const rssKillAtOnce = rssMiB(child.pid);
    await sleep(9000);
    const rssKill = rssMiB(child.pid);
    const afterKill = await countQuery(r);
    console.log(`outpost: RSS ${fmt(rssKillAtOnce)} MiB 1 s after the restart, ${fmt(rssKill)} MiB 10 s after (${fmt(rssBeforeKill)} before); count ${afterKill.value} in ${fmt(afterKill.ms)} ms`);
    report.figure("outpost RSS 10 s after the kill -9 restart", rssKill, "MiB", `<= ${Math.round(rssBeforeKill)}`, { oneSecondAfter: rssKillAtOnce, countAfter: afterKill.value, countMs: afterKill.ms });

    // SIGTERM: a clean stop and start
    const stopMs = await stop(child, "SIGTERM");
    const restarted = await startOutpost(join(dir, "data"), port);
    child = r.child = restarted.child;
    await sleep(1000);
    const rssTerm = rssMiB(child.pid);
    const afterTerm = await countQuery(r);
    console.log(`outpost: stopped in ${fmt(stopMs)} ms after SIGTERM, ready ${fmt(restarted.readyMs)} ms after; RSS ${fmt(rssTerm)} MiB; count ${afterTerm.value} in ${fmt(afterTerm.ms)} ms`);
    report.figure("outpost stop after SIGTERM", stopMs, "ms");
    report.figure("outpost ready after SIGTERM", restarted.readyMs, "ms", "<= 5000");
    report.figure("outpost RSS after the SIGTERM restart", rssTerm, "MiB", null, { countAfter: afterTerm.value, countMs: afterTerm.ms });
    await stop(child, "SIGTERM");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runOther(name: "victoria" | "prometheus"): Promise<void> {
  const program = name === "victoria" ? "/usr/bin/victoria-metrics" : "/usr/bin/prometheus";
  if (!existsSync(program)) {
    console.log(`${name}: ${program} is missing (apt-get install ${name === "victoria" ? "victoria-metrics" : "prometheus"}); skipped`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), `outpost-metrics-scale-${name}-`));
  const port = freePort();
  let args: string[];
  // VictoriaMetrics refuses a query over more than 300,000 series unless told
  if (name === "victoria") args = ["-storageDataPath", dir, "-httpListenAddr", `127.0.0.1:${port}`, "-retentionPeriod", "100y", "-search.latencyOffset", "0s", "-search.maxUniqueTimeseries", String(SERIES * 2)];
  else {
    writeFileSync(join(dir, "prometheus.yml"), "global: {}\n");
    mkdirSync(join(dir, "tsdb"));
    args = ["--config.file", join(dir, "prometheus.yml"), "--storage.tsdb.path", join(dir, "tsdb"), "--web.listen-address", `127.0.0.1:${port}`, "--web.enable-remote-write-receiver"];
  }
  const child = spawn(program, args, { stdio: ["ignore", "ignore", "ignore"] });
  try {
    await waitFor(`http://127.0.0.1:${port}/${name === "victoria" ? "health" : "-/ready"}`, 60_000);
    await sleep(1000);
    const idle = rssMiB(child.pid);
    const r: Receiver = { name, pushUrl: `http://127.0.0.1:${port}/api/v1/write`, queryUrl: `http://127.0.0.1:${port}/api/v1/query`, headers: {}, child };
    const ingest = await feed(r);
    await sleep(2000);
    const after = rssMiB(child.pid);
    ingestFigures[name] = { ...ingest, rssMiB: after };
    console.log(`${name}: ingest ${fmt(ingest.firstRound)} samples/s first round, ${fmt(ingest.laterRounds)} later, ${fmt(ingest.overall)} overall; RSS ${fmt(idle)} MiB idle, ${fmt(after)} MiB after: ${fmt(((after - idle) * 1048576) / SERIES)} bytes per series`);
    report.figure(`${name} ingest, first round`, ingest.firstRound, "samples/s");
    report.figure(`${name} ingest, later rounds`, ingest.laterRounds, "samples/s");
    report.figure(`${name} RSS after ingest`, after, "MiB", null, { idleMiB: idle });
    if (name === "victoria") await fetch(`http://127.0.0.1:${port}/internal/force_flush`).then((res) => res.arrayBuffer()).catch(() => {});
    const count = await countQuery(r);
    console.log(`${name}: ${COUNT_QUERY} ${fmt(count.ms)} ms (= ${count.value})`);
    report.figure(`${name} count({__name__=~".+"})`, count.ms, "ms", null, { result: count.value });
  } finally {
    await stop(child, "SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

if (receivers.has("outpost")) await runOutpost();
if (receivers.has("victoria")) await runOther("victoria");
if (receivers.has("prometheus")) await runOther("prometheus");
const o = ingestFigures.outpost;
for (const other of ["victoria", "prometheus"] as const) {
  const x = ingestFigures[other];
  if (!o || !x) continue;
  console.log(`outpost / ${other}: ingest ${(o.laterRounds / x.laterRounds).toFixed(2)}x later rounds, ${(o.firstRound / x.firstRound).toFixed(2)}x first round; RSS ${(o.rssMiB / x.rssMiB).toFixed(2)}x`);
  report.figure(`outpost / ${other} ingest, later rounds`, o.laterRounds / x.laterRounds, "ratio", other === "victoria" ? ">= 1" : null);
  report.figure(`outpost / ${other} ingest, first round`, o.firstRound / x.firstRound, "ratio");
}
report.save();
