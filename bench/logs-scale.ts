// Issue 18: the log store at real volumes, against the compiled binary, each
// figure beside a baseline over the same bytes. A deterministic corpus
// (bench/support/log-corpus.ts: logfmt, JSON and plain lines of ~200 bytes,
// 100 streams, 3 hours, one needle per 100,000 lines) is written to a raw file
// (one line per line) and a gzip -6 copy, and ingested over HTTP (JSON
// batches of ~1 MB of lines, 8 in flight) into a fresh data dir with the
// ingest limits raised. Then, over the whole span, alternately with the
// baselines: the needle (|=) vs grep -c and zgrep -c, a full-scan |~ regex vs
// grep -E -c (with /ready, /api/health and another tenant's 1,000-line push
// probed every 50 ms while it runs), sum(count_over_time) step 60 s, and
// count_over_time over | json | level="error" of the JSON streams (MB/s of
// their lines); RSS peaks during ingest and queries, idle RSS after, and the
// data dir's size against the raw bytes and gzip -6. Results are checked
// (the needle count equals grep's). Figures are printed, never asserted.
//
//   bun bench/logs-scale.ts                 3 GB of raw lines (LOGS_SCALE_GB=<GB> or --size <GB> for others)
//   bun bench/logs-scale.ts --quick         ~150 MB (what npm run bench runs unless LOGS_SCALE_GB is set)
//   BINARY=<path>                           another build; RUNS=<n> alternations (3 up to 0.5 GB, else 1)
//   QUERY_TIMEOUT_S=<s>                     a query's deadline (300): past it the figure is recorded as timed out;
//                                           the server's query_timeout is set to it (OUTPOST_LOGS_LIMITS_QUERY_TIMEOUT)
//   LOGS_SCALE_CORPUS=<dir>                 keep the corpus there and reuse it in later runs of the same size
//                                           (--corpus-only: write it and stop)
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startProbing, type Probe } from "../test/fuzz/support/attacks.ts";
import { median, percentile, report, rssMiB, startBinary, stopBinary } from "./lib.ts";
import { Corpus, JSON_SELECTOR, NEEDLE, RARE_REGEX, STREAMS, streamLabels } from "./support/log-corpus.ts";

const { values: flags } = parseArgs({ options: { quick: { type: "boolean" }, size: { type: "string" }, "corpus-only": { type: "boolean" } } });
const GB = flags.size !== undefined ? Number(flags.size) : flags.quick ? 0.15 : Number(process.env.LOGS_SCALE_GB ?? 3);
if (!(GB > 0)) throw new Error(`size ${flags.size ?? process.env.LOGS_SCALE_GB}: expected GB of raw lines (> 0)`);
const SIZE = `${GB} GB`;
const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
if (!existsSync(binary)) throw new Error(`${binary} is missing: run npm run build first`);
const RUNS = Number(process.env.RUNS ?? (GB <= 0.5 ? 3 : 1));
const QUERY_TIMEOUT_MS = Number(process.env.QUERY_TIMEOUT_S ?? 300) * 1000;
const SPAN_MS = 3 * 3600_000;
const BATCH_LINE_BYTES = 1_000_000;
const IN_FLIGHT = 8;
const TENANT = "bench";
const CORPUS_VERSION = 1;

console.log(`logs-scale: ${SIZE} of raw lines, ${RUNS} run(s) of each query, query timeout ${QUERY_TIMEOUT_MS / 1000} s, load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);

// ---- the corpus: raw file, gzip -6 copy, push bodies (one file, offsets in the manifest)
interface Manifest {
  version: number; sizeBytes: number; lines: number; rawBytes: number; startMs: number; spanMs: number; firstNs: string; lastNs: string;
  needles: number; rare: number; jsonLineBytes: number; jsonErrors: number; gzBytes: number;
  /** [offset, length, line bytes, lines] of each push body in bodies.jsonl */
  batches: Array<[number, number, number, number]>;
}
const keepCorpus = process.env.LOGS_SCALE_CORPUS !== undefined;
const corpusDir = keepCorpus ? join(process.env.LOGS_SCALE_CORPUS!, `logs-scale-${GB}gb-v${CORPUS_VERSION}`) : mkdtempSync(join(tmpdir(), "outpost-logs-scale-corpus-"));
const raw = join(corpusDir, "raw.log");
const gz = `${raw}.gz`;
const bodies = join(corpusDir, "bodies.jsonl");
const manifestPath = join(corpusDir, "manifest.json");

function run(cmd: string, args: string[], stdout?: string): Promise<{ ms: number; out: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { stdio: ["ignore", stdout ? openSync(stdout, "w") : "pipe", "inherit"], env: { ...process.env, LC_ALL: "C" } });
    let out = "";
    child.stdout?.on("data", (d: Buffer) => { out += d.toString(); });
    child.once("error", reject);
    child.once("exit", (code) => resolve({ ms: performance.now() - t0, out: out.trim(), code }));
  });
}

async function makeCorpus(): Promise<Manifest> {
  if (existsSync(manifestPath)) {
    const m = JSON.parse(readFileSync(manifestPath, "utf8")) as Manifest;
    if (m.version === CORPUS_VERSION && m.sizeBytes === GB * 1e9) {
      console.log(`corpus: reusing ${corpusDir}`);
      return m;
    }
  }
  mkdirSync(corpusDir, { recursive: true });
  // the average line's length, to spread the lines evenly over the span
  const probe = new Corpus(0, SPAN_MS, 20_000);
  let probeBytes = 0;
  for (let e = probe.next(); e; e = probe.next()) probeBytes += e.line.length + 1;
  const lines = Math.round((GB * 1e9) / (probeBytes / 20_000));
  const startMs = Math.floor(Date.now() / 60_000) * 60_000 - SPAN_MS - 60_000;
  const corpus = new Corpus(startMs, SPAN_MS, lines);
  const labels = Array.from({ length: STREAMS }, (_, i) => streamLabels(i));
  const isJson = labels.map((l) => l.namespace === "payments");
  const rawFd = openSync(raw, "w");
  const bodyFd = openSync(bodies, "w");
  const m: Manifest = { version: CORPUS_VERSION, sizeBytes: GB * 1e9, lines, rawBytes: 0, startMs, spanMs: SPAN_MS, firstNs: "", lastNs: "", needles: 0, rare: 0, jsonLineBytes: 0, jsonErrors: 0, gzBytes: 0, batches: [] };
  const t0 = performance.now();
  let offset = 0;
  for (;;) {
    const byStream = new Map<number, Array<[string, string]>>();
    const text: string[] = [];
    let bytes = 0;
    let e = corpus.next();
    for (; e; e = bytes >= BATCH_LINE_BYTES ? undefined : corpus.next()) {
      if (m.firstNs === "") m.firstNs = e.tsNs;
      m.lastNs = e.tsNs;
      let values = byStream.get(e.stream);
      if (!values) byStream.set(e.stream, (values = []));
      values.push([e.tsNs, e.line]);
      text.push(e.line);
      bytes += e.line.length;
      if (e.needle) m.needles++;
      if (e.rare) m.rare++;
      if (isJson[e.stream]) {
        m.jsonLineBytes += e.line.length;
        if (e.line.startsWith("{") && e.line.includes('"level":"error"')) m.jsonErrors++;
      }
    }
    if (text.length === 0) break;
    const body = Buffer.from(JSON.stringify({ streams: [...byStream].map(([s, values]) => ({ stream: labels[s], values })) }));
    writeSync(bodyFd, body);
    m.batches.push([offset, body.length, bytes, text.length]);
    offset += body.length;
    const rawText = text.join("\n") + "\n";
    writeSync(rawFd, rawText);
    m.rawBytes += rawText.length;
  }
  closeSync(rawFd);
  closeSync(bodyFd);
  console.log(`corpus: ${m.lines} lines, ${(m.rawBytes / 1e6).toFixed(0)} MB raw (${(m.rawBytes / m.lines).toFixed(0)} bytes a line), ${m.batches.length} push bodies, generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const g = await run("gzip", ["-6", "-c", raw], gz);
  m.gzBytes = statSync(gz).size;
  console.log(`gzip -6: ${(m.gzBytes / 1e6).toFixed(0)} MB (${(m.gzBytes / m.rawBytes).toFixed(3)} of raw) in ${(g.ms / 1000).toFixed(1)} s`);
  writeFileSync(manifestPath, JSON.stringify(m));
  return m;
}

const corpus = await makeCorpus();
if (flags["corpus-only"]) {
  console.log(`corpus only: kept in ${corpusDir}${keepCorpus ? "" : " (removed: LOGS_SCALE_CORPUS was not set)"}`);
  if (!keepCorpus) rmSync(corpusDir, { recursive: true, force: true });
  process.exit(0);
}
const rawMB = corpus.rawBytes / 1e6;

// ---- the server under test, and its RSS sampled every 200 ms into the current phase's peak
function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(path) : entry.isFile() ? statSync(path).size : 0;
  }
  return total;
}
// the server's own query timeout (logs.limits.query_timeout, issue 18; 1m by default) no shorter than this
// benchmark's: set through the environment, which a build without that key ignores (a flag would be refused)
process.env.OUTPOST_LOGS_LIMITS_QUERY_TIMEOUT ??= `${QUERY_TIMEOUT_MS / 1000}s`;
const dataParent = mkdtempSync(join(tmpdir(), "outpost-logs-scale-data-"));
const dataDir = join(dataParent, "data");
const server = await startBinary(binary, [
  "serve", "--data-dir", dataDir, "--http-port", "0", "--logs-port", "0", "--metrics-port", "0", "--log-level", "warn",
  "--logs-ingestion-rate-mb", "100000", "--logs-ingestion-burst-size-mb", "100000", "--logs-max-line-size", "1MB",
  "--no-logs-reject-old-samples", "--logs-max-streams-per-user", "100000",
]);
const pid = server.child.pid!;
const peaks: Record<string, number> = {};
let phase = "start";
const loads: number[] = [];
const sampler = setInterval(() => {
  peaks[phase] = Math.max(peaks[phase] ?? 0, rssMiB(pid));
  loads.push(loadavg()[0]!);
}, 200);
const logs = server.urls.logs!;
const headers = { "X-Scope-OrgID": TENANT };
let wrong = 0;

/** the server's own view of its memory (the log store's /metrics: heap and external bytes), for the idle line */
async function memoryParts(): Promise<string> {
  try {
    const text = await (await fetch(`${logs}/metrics`)).text();
    const pick = (name: string) => Number(new RegExp(`^\\w*${name} (\\S+)$`, "m").exec(text)?.[1] ?? NaN) / 1048576;
    // (on Bun these are JavaScriptCore's figures as prom-client reads them: the heap's total can read below its used part)
    return `; the runtime's own figures: heap used ${pick("nodejs_heap_size_used_bytes").toFixed(0)} MiB, external ${pick("nodejs_external_memory_bytes").toFixed(0)} MiB`;
  } catch {
    return "";
  }
}

const ms = (x: number) => `${x.toFixed(0)} ms`;
const secs = (x: number) => `${(x / 1000).toFixed(2)} s`;

try {
  // ---- ingest
  phase = "ingest";
  const fh = await open(bodies);
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  let firstFailure = "";
  let pushedBytes = 0;
  let pushedLines = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < corpus.batches.length) {
      const [offset, length, bytes, lines] = corpus.batches[next++]!;
      const body = Buffer.alloc(length);
      await fh.read(body, 0, length, offset);
      const start = performance.now();
      const res = await fetch(`${logs}/svc/api/v1/push`, { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body });
      const text = await res.text();
      latencies.push(performance.now() - start);
      if (res.status === 204) {
        pushedBytes += bytes;
        pushedLines += lines;
      } else if (failures++ === 0) firstFailure = `${res.status} ${text.slice(0, 200)}`;
    }
  }));
  const ingestS = (performance.now() - t0) / 1000;
  await fh.close();
  if (failures > 0) {
    wrong++;
    console.log(`WRONG: ${failures} pushes failed, the first: ${firstFailure}`);
  }
  const p = (q: number) => percentile(latencies, q);
  console.log(`ingest: ${(pushedBytes / 1e6 / ingestS).toFixed(1)} MB/s of lines (${Math.round(pushedLines / ingestS)} lines/s) in ${ingestS.toFixed(1)} s; push latency p50 ${ms(p(50))}, p99 ${ms(p(99))}, max ${ms(p(100))} (targets >= 50 MB/s, p99 <= 250 ms); RSS peak ${peaks.ingest?.toFixed(0)} MiB (target <= 1024)`);
  report.figure(`${SIZE}: ingest, MB/s of lines`, pushedBytes / 1e6 / ingestS, "MB/s", ">= 50", { failedPushes: failures, seconds: ingestS });
  report.figure(`${SIZE}: ingest, push latency p50`, p(50), "ms");
  report.figure(`${SIZE}: ingest, push latency p99`, p(99), "ms", "<= 250");
  report.figure(`${SIZE}: ingest, push latency max`, p(100), "ms");
  report.figure(`${SIZE}: RSS peak during ingest`, peaks.ingest ?? 0, "MiB", "<= 1024");
  const afterIngest = dirBytes(dataDir);
  console.log(`data dir right after ingest: ${(afterIngest / 1e6).toFixed(0)} MB`);

  // ---- queries
  phase = "queries";
  const range = { start: String(BigInt(corpus.firstNs) - 60_000_000_000n), end: String(BigInt(corpus.lastNs) + 300_000_000_000n) };
  interface Answer { ms: number; timedOut: boolean; status?: number; body?: { data: { result: Array<{ metric?: Record<string, string>; stream?: Record<string, string>; values: Array<[unknown, string]> }> } } }
  async function query(params: Record<string, string>): Promise<Answer> {
    const qs = new URLSearchParams({ ...range, ...params });
    const start = performance.now();
    try {
      const res = await fetch(`${logs}/svc/api/v1/query_range?${qs}`, { headers, signal: AbortSignal.timeout(QUERY_TIMEOUT_MS) });
      const text = await res.text();
      const answer: Answer = { ms: performance.now() - start, timedOut: false, status: res.status };
      if (res.status === 200) answer.body = JSON.parse(text) as Answer["body"];
      else {
        wrong++;
        console.log(`WRONG: ${params.query} answered ${res.status} ${text.slice(0, 300)}`);
      }
      return answer;
    } catch (e) {
      if ((e as Error).name !== "TimeoutError") throw e;
      const waited = performance.now() - start;
      // the server may still be busy with it: wait until /ready answers again before the next figure
      const busy = performance.now();
      for (;;) {
        if (server.child.exitCode !== null || server.child.signalCode !== null) throw new Error(`the server exited (${server.child.exitCode ?? server.child.signalCode}) during ${params.query}`);
        try {
          if ((await fetch(`${logs}/ready`, { signal: AbortSignal.timeout(5_000) })).status === 200) break;
        } catch { /* still busy */ }
        await new Promise((r) => setTimeout(r, 500));
      }
      console.log(`TIMEOUT: ${params.query} after ${secs(waited)}; the server answered /ready ${secs(performance.now() - busy)} later`);
      return { ms: waited, timedOut: true };
    }
  }
  const entries = (a: Answer) => a.body?.data.result.reduce((n, s) => n + s.values.length, 0) ?? 0;
  /** the sum of every point of a matrix (each line is in exactly 5 of the 60 s steps of a 5m window) */
  const points = (a: Answer, filter: (m: Record<string, string>) => boolean = () => true) =>
    a.body?.data.result.filter((s) => filter(s.metric ?? {})).reduce((n, s) => n + s.values.reduce((k, v) => k + Number(v[1]), 0), 0) ?? 0;
  const grep = async (args: string[], file = raw) => {
    const r = await run(args[0] === "zgrep" ? "zgrep" : "grep", [...args.slice(args[0] === "zgrep" ? 1 : 0), file]);
    return { ms: r.ms, count: Number(r.out) };
  };
  const check = (what: string, got: number, want: number) => {
    if (got === want) return true;
    wrong++;
    console.log(`WRONG: ${what}: ${got}, expected ${want}`);
    return false;
  };

  const probeBody = () => {
    const now = BigInt(Date.now()) * 1_000_000n;
    const values = Array.from({ length: 1000 }, (_, i) => [String(now + BigInt(i)), `level=info caller=probe.go:1 msg="probe push" seq=${i} ${"p".repeat(160)}`]);
    return JSON.stringify({ streams: [{ stream: { job: "probe" }, values }] });
  };
  const probes: Probe[] = [
    { name: "/ready (log port)", service: "logs", init: () => ({ path: "/ready" }), ok: (s) => s === 200 },
    { name: "/api/health (dashboard port)", service: "dashboard", init: () => ({ path: "/api/health" }), ok: (s) => s === 200 },
    {
      name: "1,000-line push from another tenant", service: "logs", ok: (s) => s === 204,
      init: () => ({ path: "/svc/api/v1/push", method: "POST", headers: { "X-Scope-OrgID": "probe", "Content-Type": "application/json" }, body: probeBody() }),
    },
  ];

  await grep(["-c", NEEDLE]); // the raw file into the page cache, as the store's files are after ingest
  const times: Record<string, number[]> = {};
  const timedOut = new Set<string>();
  const time = (name: string, a: { ms: number; timedOut?: boolean }) => {
    (times[name] ??= []).push(a.ms);
    console.log(`  ${name}: ${secs(a.ms)}${a.timedOut ? " (timed out)" : ""}`); // progress: one run at 3 GB takes many minutes
    if (a.timedOut) timedOut.add(name);
  };
  const probeMs: Record<string, number[]> = {};
  let probeFailures: string[] = [];
  let probesSkipped = 0;
  const needleQ = `{job=~".+"} |= "${NEEDLE}"`;
  const regexQ = `{job=~".+"} |~ \`${RARE_REGEX}\``;
  const countQ = 'sum(count_over_time({job=~".+"}[5m]))';
  const jsonQ = `sum by (level) (count_over_time(${JSON_SELECTOR} | json | level="error" [5m]))`;
  for (let r = 0; r < RUNS; r++) {
    const g = await grep(["-c", NEEDLE]);
    time("grep", g);
    const needle = await query({ query: needleQ, limit: "1000", direction: "backward" });
    time("needle", needle);
    if (!needle.timedOut && needle.body) check(`needle query entries (run ${r + 1})`, entries(needle), g.count);
    check("grep -c needle", g.count, corpus.needles);
    time("zgrep", await grep(["zgrep", "-c", NEEDLE], gz));

    const ge = await grep(["-E", "-c", RARE_REGEX]);
    time("grep -E", ge);
    check("grep -E -c", ge.count, corpus.rare);
    const probing = startProbing(server.urls as Record<"dashboard" | "logs" | "metrics", string>, { everyMs: 50, deadlineMs: QUERY_TIMEOUT_MS + 60_000, probes, maxInFlight: 100 });
    const regex = await query({ query: regexQ, limit: "1000", direction: "backward" });
    const stats = await probing.stop();
    time("regex", regex);
    for (const [name, list] of Object.entries(stats.ms)) (probeMs[name] ??= []).push(...list);
    probeFailures = probeFailures.concat(stats.failed);
    probesSkipped += stats.skipped;
    if (!regex.timedOut && regex.body) check(`regex query entries (run ${r + 1})`, entries(regex), ge.count);

    const count = await query({ query: countQ, step: "60" });
    time("count", count);
    if (!count.timedOut && count.body) check(`sum of count_over_time points / 5 (run ${r + 1})`, points(count) / 5, corpus.lines);
    const json = await query({ query: jsonQ, step: "60" });
    time("json", json);
    if (!json.timedOut && json.body) check(`error count of the json query / 5 (run ${r + 1})`, points(json, (m) => m.level === "error") / 5, corpus.jsonErrors);
  }
  const med = (name: string) => median(times[name]!);
  const extra = (name: string) => ({ runs: times[name]!.length, minMs: Math.min(...times[name]!), maxMs: Math.max(...times[name]!), ...(timedOut.has(name) ? { timedOut: true } : {}) });
  const late = (name: string) => (timedOut.has(name) ? ` (TIMED OUT at ${secs(QUERY_TIMEOUT_MS)}: the ratio is an upper bound)` : "");

  console.log(`\nover ${SIZE} (${rawMB.toFixed(0)} MB raw, ${corpus.lines} lines), medians of ${RUNS} run(s):`);
  console.log(`needle |= "${NEEDLE}" limit 1000: ${secs(med("needle"))} (${(rawMB / (med("needle") / 1000)).toFixed(0)} MB/s); grep -c ${secs(med("grep"))} (${(rawMB / (med("grep") / 1000)).toFixed(0)} MB/s); zgrep -c ${secs(med("zgrep"))}; ratio to grep ${(med("grep") / med("needle")).toFixed(3)} (target >= 1.0), to zgrep ${(med("zgrep") / med("needle")).toFixed(3)}${late("needle")}`);
  report.figure(`${SIZE}: needle |= query, limit 1000`, med("needle") / 1000, "s", null, extra("needle"));
  report.figure(`${SIZE}: grep -c needle on the raw file`, med("grep") / 1000, "s", null, extra("grep"));
  report.figure(`${SIZE}: zgrep -c needle on the gzip -6 file`, med("zgrep") / 1000, "s", null, extra("zgrep"));
  report.figure(`${SIZE}: needle query speed / grep -c speed`, med("grep") / med("needle"), "x", ">= 1", extra("needle"));
  report.figure(`${SIZE}: needle query speed / zgrep -c speed`, med("zgrep") / med("needle"), "x", null, extra("needle"));
  console.log(`regex |~ \`${RARE_REGEX}\` limit 1000 (a full scan): ${secs(med("regex"))}; grep -E -c ${secs(med("grep -E"))}; ratio ${(med("grep -E") / med("regex")).toFixed(3)} (target >= 0.25)${late("regex")}`);
  report.figure(`${SIZE}: full-scan |~ regex query, limit 1000`, med("regex") / 1000, "s", null, extra("regex"));
  report.figure(`${SIZE}: grep -E -c regex on the raw file`, med("grep -E") / 1000, "s", null, extra("grep -E"));
  report.figure(`${SIZE}: regex query speed / grep -E -c speed`, med("grep -E") / med("regex"), "x", ">= 0.25", extra("regex"));
  console.log(`${countQ} step 60 s: ${secs(med("count"))} (target <= 2 s)${late("count")}`);
  report.figure(`${SIZE}: sum(count_over_time) over the span, step 60 s`, med("count") / 1000, "s", "<= 2", extra("count"));
  const jsonMBs = corpus.jsonLineBytes / 1e6 / (med("json") / 1000);
  console.log(`${jsonQ} step 60 s: ${secs(med("json"))}, ${jsonMBs.toFixed(1)} MB/s of the JSON streams' ${(corpus.jsonLineBytes / 1e6).toFixed(0)} MB of lines (target >= 100)${late("json")}`);
  report.figure(`${SIZE}: json | level="error" count_over_time, MB/s of lines`, jsonMBs, "MB/s", ">= 100", extra("json"));
  for (const [name, list] of Object.entries(probeMs)) {
    console.log(`probe ${name} every 50 ms during the regex query: ${list.length} answered, p50 ${ms(percentile(list, 50))}, p99 ${ms(percentile(list, 99))}, max ${ms(percentile(list, 100))} (target p99 <= 100 ms)`);
    report.figure(`${SIZE}: ${name} during the regex query, p50`, percentile(list, 50), "ms");
    report.figure(`${SIZE}: ${name} during the regex query, p99`, percentile(list, 99), "ms", "<= 100", { probes: list.length });
    report.figure(`${SIZE}: ${name} during the regex query, max`, percentile(list, 100), "ms");
  }
  if (probeFailures.length > 0) console.log(`probe failures: ${probeFailures.length}, the first: ${probeFailures[0]}`);
  if (probesSkipped > 0) console.log(`probes not sent while 100 of their kind waited: ${probesSkipped}`);
  console.log(`RSS peak during the queries: ${peaks.queries?.toFixed(0)} MiB (target <= 1229)`);
  report.figure(`${SIZE}: RSS peak during the queries`, peaks.queries ?? 0, "MiB", "<= 1229");

  // ---- idle, and the data dir
  phase = "idle";
  // idle: past the worker pool's idle timeout (15 s: idle workers end and give their memory back)
  await new Promise((r) => setTimeout(r, 10_000));
  const idle10 = rssMiB(pid);
  await new Promise((r) => setTimeout(r, 20_000));
  const idle = rssMiB(pid);
  const disk = dirBytes(dataDir);
  console.log(`RSS idle 30 s after the queries: ${idle.toFixed(0)} MiB (target <= 500; 10 s after: ${idle10.toFixed(0)} MiB)${await memoryParts()}`);
  report.figure(`${SIZE}: RSS idle after the queries`, idle, "MiB", "<= 500", { after10s: idle10 });
  console.log(`data dir: ${(disk / 1e6).toFixed(0)} MB = ${(disk / corpus.rawBytes).toFixed(3)} of the raw bytes (target <= 0.4), ${(disk / corpus.gzBytes).toFixed(2)}x gzip -6 (${(corpus.gzBytes / 1e6).toFixed(0)} MB, ${(corpus.gzBytes / corpus.rawBytes).toFixed(3)} of raw)`);
  // where the bytes are: each entry of the data dir, and PGlite's own WAL
  const parts: Record<string, number> = {};
  for (const entry of readdirSync(dataDir, { withFileTypes: true })) parts[entry.name] = entry.isDirectory() ? dirBytes(join(dataDir, entry.name)) : statSync(join(dataDir, entry.name)).size;
  if (existsSync(join(dataDir, "pgdata", "pg_wal"))) parts["pgdata/pg_wal"] = dirBytes(join(dataDir, "pgdata", "pg_wal"));
  console.log(`data dir parts: ${Object.entries(parts).filter(([, b]) => b >= 1e6).map(([n, b]) => `${n} ${(b / 1e6).toFixed(0)} MB`).join(", ")}`);
  report.figure(`${SIZE}: data dir / raw bytes`, disk / corpus.rawBytes, "x", "<= 0.4", { dataDirBytes: disk, rawBytes: corpus.rawBytes, afterIngestBytes: afterIngest, parts });
  report.figure(`${SIZE}: data dir / gzip -6 size`, disk / corpus.gzBytes, "x", null, { better: "lower", gzBytes: corpus.gzBytes });
  // the machine is shared: how busy it was while this ran (1-minute load average, sampled every 200 ms)
  console.log(`load average during the run: median ${median(loads).toFixed(2)}, max ${Math.max(...loads).toFixed(2)} (${cpus().length} cores)`);
  report.figure("load average during the run (median of the 1-minute figure)", median(loads), "", null, { better: null, max: Math.max(...loads), cores: cpus().length });
  console.log(wrong === 0 ? "results checked: all right" : `results checked: ${wrong} WRONG`);
} finally {
  clearInterval(sampler);
  await stopBinary(server.child);
  rmSync(dataParent, { recursive: true, force: true });
  if (!keepCorpus) rmSync(corpusDir, { recursive: true, force: true });
}
report.save();
if (wrong > 0) process.exitCode = 1;
