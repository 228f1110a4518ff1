// Micro-benchmark of the XOR chunk codec: encode and decode 10,000 chunks of
// 120 samples of a realistic counter (15 s scrapes, incrementing values).
//   bun bench/xor-chunk.ts            (CHUNKS=…, ROUNDS=… to change the size)
// Timestamps: every scrape jittered by up to ±25 ms ("jitter"), or as
// Prometheus ≥ 2.34 writes them ("aligned": jitter within 2 ms snapped to the
// interval, so most deltas of delta are 0, with an occasional late scrape).
// Values: a busy counter (tens to hundreds of events per scrape), or a quiet
// one (0-3 events, often none), more like most of a real Prometheus's series.
//   encode    encodeXorChunk(t, v) per chunk
//   append    XorAppender.append per sample (reset between chunks)
//   decode    decodeXorChunk per chunk (allocates its two arrays)
//   into      decodeXorChunkInto all chunks' samples into one pair of arrays
import { report, rng } from "./lib.ts";
import { decodeXorChunk, decodeXorChunkInto, encodeXorChunk, XorAppender } from "../src/apps/metrics/core/xor-chunk.ts";

const CHUNKS = Number(process.env.CHUNKS ?? 10_000);
const SAMPLES = 120;
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const STEP = 15_000;

interface Data {
  t: Float64Array[];
  v: Float64Array[];
}

type Shape = "jitter" | "aligned";
type Counter = "busy" | "quiet";

function makeData(shape: Shape, counter: Counter): Data {
  const r = rng(42);
  const t: Float64Array[] = [];
  const v: Float64Array[] = [];
  for (let c = 0; c < CHUNKS; c++) {
    const ts = new Float64Array(SAMPLES);
    const vs = new Float64Array(SAMPLES);
    const start = 1_700_000_000_000 + c * 7_919;
    // a counter: a per-series rate, Poisson-ish increments around it
    const rate = counter === "busy" ? Math.floor(r() * 200) : r() * 1.5;
    let value = Math.floor(r() * 1e6);
    for (let i = 0; i < SAMPLES; i++) {
      let jitter = 0;
      if (shape === "jitter") jitter = Math.round((r() - 0.5) * 50);
      else if (r() < 0.05) jitter = 3 + Math.floor(r() * 20); // a late scrape, not snapped
      ts[i] = start + i * STEP + jitter;
      value += Math.max(0, Math.round(rate * 2 * r()));
      vs[i] = value;
    }
    t.push(ts);
    v.push(vs);
  }
  return { t, v };
}

function run(shape: Shape, counter: Counter): void {
  const data = makeData(shape, counter);
  const samples = CHUNKS * SAMPLES;
  const chunks: Uint8Array[] = new Array(CHUNKS);
  let best = { enc: Infinity, app: Infinity, dec: Infinity, into: Infinity };
  const appender = new XorAppender();
  const allT = new Float64Array(samples);
  const allV = new Float64Array(samples);
  let sink = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    // round 0 warms the JIT up and is not counted
    let t0 = performance.now();
    for (let c = 0; c < CHUNKS; c++) chunks[c] = encodeXorChunk(data.t[c]!, data.v[c]!);
    const enc = performance.now() - t0;

    t0 = performance.now();
    for (let c = 0; c < CHUNKS; c++) {
      appender.reset();
      const ts = data.t[c]!;
      const vs = data.v[c]!;
      for (let i = 0; i < SAMPLES; i++) appender.append(ts[i]!, vs[i]!);
      sink += appender.byteLength;
    }
    const app = performance.now() - t0;

    t0 = performance.now();
    for (let c = 0; c < CHUNKS; c++) sink += decodeXorChunk(chunks[c]!).t.length;
    const dec = performance.now() - t0;

    t0 = performance.now();
    let at = 0;
    for (let c = 0; c < CHUNKS; c++) at += decodeXorChunkInto(chunks[c]!, allT, allV, at);
    const into = performance.now() - t0;
    sink += at;
    if (round > 0) best = { enc: Math.min(best.enc, enc), app: Math.min(best.app, app), dec: Math.min(best.dec, dec), into: Math.min(best.into, into) };
  }
  // check the round trip once, outside the timing
  for (let c = 0; c < CHUNKS; c += 97) {
    const d = decodeXorChunk(chunks[c]!);
    for (let i = 0; i < SAMPLES; i++)
      if (d.t[i] !== data.t[c]![i] || d.v[i] !== data.v[c]![i]) throw new Error(`round trip failed: chunk ${c} sample ${i}`);
  }
  const bytes = chunks.reduce((s, b) => s + b.length, 0);
  const ns = (ms: number) => ((ms * 1e6) / samples).toFixed(1).padStart(6);
  if (sink < 0) console.log(sink); // keeps the work observable
  const perSample = (ms: number) => (ms * 1e6) / samples;
  for (const [what, ms] of [["encode", best.enc], ["append", best.app], ["decode", best.dec], ["decode into", best.into]] as const) {
    report.figure(`${shape} ${counter}: ${what}`, perSample(ms), "ns/sample");
  }
  report.figure(`${shape} ${counter}: size`, bytes / samples, "bytes/sample");
  console.log(
    `${`${shape} ${counter}`.padEnd(14)} ${ns(best.enc)} ${ns(best.app)} ${ns(best.dec)} ${ns(best.into)}   ` +
      `${(bytes / samples).toFixed(3)} (${(bytes / CHUNKS).toFixed(1)} bytes/chunk)`,
  );
}

const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.version}`;
console.log(`XOR chunks: ${CHUNKS} chunks × ${SAMPLES} samples, best of ${ROUNDS} rounds, ${runtime}`);
console.log(`${"ns/sample:".padEnd(14)} encode append decode   into   bytes/sample`);
run("jitter", "busy");
run("aligned", "busy");
run("jitter", "quiet");
run("aligned", "quiet");
report.save();
