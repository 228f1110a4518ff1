// Giving memory back while a steady stream of pushes allocates. JavaScriptCore
// (Bun, the compiled binary) lets garbage grow to about the size of what is
// live before it collects, and its allocator (mimalloc) keeps the pages it
// freed: under full-speed ingest the process held ~1.7 GiB for ~0.6 GiB live
// (issue 18). Bun.gc(false) asks for a collection without waiting for it and
// has mimalloc give free pages back; once this thread's heap has grown
// HEADROOM_BYTES past what was live after the last full collection, the call
// is a full collection, waited for (30–70 ms), at most every 0.6 s: what
// brings a long ingest's peak down. Growth is measured on this thread's own
// heap, so a query's workers growing never pause the event loop. V8 (Node.js,
// Deno) collects young garbage on its own schedule: there this does nothing.
import { runtime } from "./runtime.ts";

/** heap growth (JavaScriptCore's heap size, which counts array buffers) past the last full collection's live bytes that makes the next release a full one */
export const HEADROOM_BYTES = 128 * 1024 * 1024;
/** the least time between two full collections (garbage made faster than that is collected later, never back to back) */
const FULL_MIN_MS = 600;
let lastFull = -Infinity;
/**
 * a full collection, waited for: bun:jsc's fullGC where it loads (Bun.gc(true) also has mimalloc
 * walk its pages and JavaScriptCore drop compiled code: ~25 ms more a time under ingest; the
 * non-waited calls give the pages back anyway). Imported by a name the bundler leaves alone: the
 * Node.js bundle never loads it.
 */
let fullCollection = (): void => Bun.gc(true);
/** a collection of the young generation only (bun:jsc edenGC: ~0 ms), where it loads */
let youngCollection = (): void => Bun.gc(false);
if (runtime === "bun") {
  const jscModule = "bun:jsc";
  import(/* @vite-ignore */ jscModule).then(
    (jsc: { fullGC?: () => unknown; edenGC?: () => unknown }) => {
      if (typeof jsc.fullGC === "function") fullCollection = () => void jsc.fullGC!();
      if (typeof jsc.edenGC === "function") youngCollection = () => void jsc.edenGC!();
    },
    () => undefined,
  );
}
/** this thread's heap right after its last full collection */
let liveAfterFull = 0;

/** a full collection now, waited for (at start, before serving: a pause costs nothing then) */
export function collectGarbage(): void {
  if (runtime !== "bun") return;
  // Bun.gc(true): mimalloc gives its free pages back as well
  Bun.gc(true);
  lastFull = performance.now();
  liveAfterFull = process.memoryUsage().heapUsed;
}

/**
 * collects the young generation now: garbage that is mostly array buffers
 * (bodies, typed arrays moved from a worker) is not counted by the collector's
 * own trigger, and piles up while little else is allocated (a gigabyte over a
 * million series' pushes); a young collection takes no time to speak of
 */
export function collectYoung(): void {
  if (runtime === "bun") youngCollection();
}

/** asks for a collection without waiting for it (mimalloc gives free pages back): never a pause */
export function giveBackMemory(): void {
  if (runtime === "bun") Bun.gc(false);
}

export function releaseMemory(): void {
  if (runtime !== "bun") return;
  const now = performance.now();
  if (now - lastFull >= FULL_MIN_MS && process.memoryUsage().heapUsed > liveAfterFull + HEADROOM_BYTES) {
    fullCollection();
    lastFull = performance.now();
    liveAfterFull = process.memoryUsage().heapUsed;
    return;
  }
  Bun.gc(false);
}

/**
 * Counts bytes allocated (say, push bodies taken in) and calls `release` once
 * `everyBytes` have been counted since the last call, at most once per `minMs`:
 * nothing happens while little is allocated.
 */
export function memoryPacer(everyBytes: number, minMs: number, release: () => void = releaseMemory): (bytes: number) => void {
  let counted = 0;
  let last = -Infinity;
  return (bytes) => {
    counted += bytes;
    if (counted < everyBytes) return;
    const now = performance.now();
    if (now - last < minMs) return;
    counted = 0;
    last = now;
    release();
  };
}

/**
 * Bun answers v8.getHeapSpaceStatistics() by walking the whole heap (~45 ns
 * an object: ~0.5 s with a million series in the metrics store's head), and
 * prom-client's default metrics call it at every scrape of /metrics, on the
 * event loop. Bun has no V8 heap spaces to report anyway: the call is made
 * to fail as older Bun releases did, so prom-client leaves those gauges out
 * (nodejs_heap_space_size_*), as it does there. Node.js and Deno are left
 * alone.
 */
export async function skipHeapSpaceWalks(): Promise<void> {
  if (runtime !== "bun") return;
  const v8 = (await import("node:v8")) as unknown as { default?: Record<string, unknown> } & Record<string, unknown>;
  const fail = () => {
    throw Object.assign(new Error("v8.getHeapSpaceStatistics is not implemented: Bun has no V8 heap spaces"), { code: "ERR_NOT_IMPLEMENTED" });
  };
  for (const target of [v8, v8.default]) {
    if (target && typeof target.getHeapSpaceStatistics === "function") {
      try {
        Object.defineProperty(target, "getHeapSpaceStatistics", { value: fail, configurable: true, writable: true });
      } catch {
        // a frozen namespace: the default export is what CommonJS require gives anyway
      }
    }
  }
}
