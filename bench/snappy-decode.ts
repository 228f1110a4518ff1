// Micro-benchmark of snappy block decoding (issue 16 #0): the checked decoder
// in src/lib/snappy.ts against snappyjs (unchecked, used before), on the
// remote-write bodies bench/metrics-ingest.ts sends (500 series, 4 labels and
// one sample each) and on a larger log-like body. Prints MB/s of output and,
// for remote write, samples/s the decoder alone could sustain.
//   bun bench/snappy-decode.ts        (ROUNDS=… to change the length)
import snappy from "snappyjs";
import { encodeWriteRequest } from "../src/apps/metrics/core/remote-write.ts";
import { snappyUncompress } from "../src/lib/snappy.ts";
import { report } from "./lib.ts";

const ROUNDS = Number(process.env.ROUNDS ?? 2000);
const PER_REQUEST = 500;

const remoteWrite = encodeWriteRequest({
  timeseries: Array.from({ length: PER_REQUEST }, (_, s) => ({
    labels: [
      { name: "__name__", value: `bench_metric_${s % 50}` },
      { name: "instance", value: `host-${s % 200}.example.com:9100` },
      { name: "job", value: "node" },
      { name: "series", value: String(s) },
    ],
    samples: [{ value: s, timestampMs: 1_700_000_000_000 + s }],
  })),
});
const logText = new TextEncoder().encode(
  Array.from({ length: 4000 }, (_, i) => `level=info ts=2026-11-26T03:${String(i % 60).padStart(2, "0")}:00Z caller=main.go:${i % 300} msg="request served" path=/api/v1/items/${i} status=200 duration_ms=${i % 97}\n`).join(""),
);
const logBody = snappy.compress(logText);

function measure(name: string, body: Uint8Array, decode: (b: Uint8Array) => Uint8Array, rounds: number): number {
  for (let i = 0; i < 50; i++) decode(body);
  const started = performance.now();
  let bytes = 0;
  for (let i = 0; i < rounds; i++) bytes += decode(body).length;
  const seconds = (performance.now() - started) / 1000;
  console.log(`${name.padEnd(32)} ${(bytes / seconds / 1e6).toFixed(0).padStart(6)} MB/s  ${(rounds / seconds).toFixed(0).padStart(7)} bodies/s`);
  report.figure(`${name}: output`, bytes / seconds / 1e6, "MB/s", null, { bodiesPerSecond: rounds / seconds });
  return rounds / seconds;
}

console.log(`remote write: ${remoteWrite.length} bytes compressed, log body: ${logBody.length} -> ${logText.length} bytes`);
const before = measure("remote write, snappyjs", remoteWrite, (b) => snappy.uncompress(b), ROUNDS);
const after = measure("remote write, checked", remoteWrite, (b) => snappyUncompress(b, 100 << 20), ROUNDS);
console.log(`  samples/s the decoder alone sustains: snappyjs ${Math.round(before * PER_REQUEST)}, checked ${Math.round(after * PER_REQUEST)}`);
report.figure("remote write, snappyjs: samples the decoder alone sustains", before * PER_REQUEST, "samples/s");
report.figure("remote write, checked: samples the decoder alone sustains", after * PER_REQUEST, "samples/s");
measure("log body, snappyjs", logBody, (b) => snappy.uncompress(b), ROUNDS / 10);
measure("log body, checked", logBody, (b) => snappyUncompress(b, 100 << 20), ROUNDS / 10);
report.save();
