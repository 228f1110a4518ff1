// One live tail (Loki's querier Tailer, pkg/querier/tail): the newest
// `limit` entries since `start`, then every entry pushed from then on, each
// once it is `delay_for` old (an entry is held until now > ts + delay_for,
// so entries come out in time order even when shippers send them late). A
// message holds at most 100 entries, each as a stream of its own, as Loki's
// do. Pushed entries wait in a bounded buffer: past it (a client slower than
// the logs, or a burst) they are dropped and named in the next message's
// `dropped_entries`. The pipeline runs here on the event loop, in slices,
// as it does for entries read from heads.
import type { Entry } from "./chunks.ts";
import { tsText } from "./chunks.ts";
import { entryPipeline, type StreamResult } from "./logql/evaluate.ts";
import { categorize } from "./logql/metadata.ts";
import type { LogQuery } from "./logql/parse.ts";
import type { Stream } from "./store.ts";
import { streamsJson } from "./streams-json.ts";
import type { TailHub } from "./tail-hub.ts";

/** how often held entries are looked at */
export const TAIL_TICK_MS = 100;
/** entries in one message (Loki's maxEntriesPerTailResponse) */
const ENTRIES_PER_MESSAGE = 100;
/** messages sent in one tick at most (Loki buffers 10 responses) */
const MESSAGES_PER_TICK = 10;
/** the longest one tick runs the pipeline before letting other work in (ms) */
const SLICE_MS = 8;
/** pushed entries held for a tail at most; more are dropped */
export const MAX_HELD_ENTRIES = 10_000;
/** dropped entries named in a message at most (Loki's maxDroppedEntriesPerTailResponse) */
const MAX_DROPPED = 1000;
/** bytes waiting in the socket past which nothing more is sent until the client reads */
const MAX_UNSENT_BYTES = 1024 * 1024;

/** the socket, as the tail writes to it */
export interface TailSink {
  send(text: string): void;
  buffered(): number;
  close(code: number, reason: string): void;
}

export interface TailOptions {
  hub: TailHub;
  tenant: string;
  query: LogQuery;
  /** ms an entry is held past its timestamp */
  delayMs: number;
  /** the tail ends after this long (querier.tail_max_duration) */
  maxDurationMs: number;
  /** the categorize-labels encoding */
  categorized: boolean;
  /** the encoding flags the client sent, echoed in every message */
  flags: readonly string[];
  maxTemplateOutput?: number | undefined;
  now: () => number;
  /** the newest `limit` entries from start to `end` (ns, included): a backward query through the query queue */
  history: (end: bigint, signal: AbortSignal) => Promise<StreamResult[]>;
  sink: TailSink;
  /** the tail is over (its place goes back) */
  ended: () => void;
}

/** an entry held: from the history (already through the pipeline), or pushed (not yet) */
interface Held {
  ts: bigint;
  out?: { stream: Record<string, string>; value: StreamResult["values"][number] };
  pushed?: { entry: Entry; labels: Record<string, string> };
}

const byTs = (a: Held, b: Held) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0);
/** Loki's close code for a tail that ends on the server's side (websocket.CloseInternalServerErr) */
const INTERNAL_ERROR = 1011;

export function startTail(o: TailOptions): { stop(): void } {
  const pipeline = entryPipeline(o.query, o.maxTemplateOutput, o.categorized);
  const held: Held[] = [];
  let sorted = true;
  const dropped: Array<{ timestamp: string; labels: Record<string, string> }> = [];
  let historyDone = false;
  /** the history's entries (their keys), so an entry pushed while it was read is not sent twice */
  let historyKeys: Set<string> | undefined;
  let historyEnd = 0n;
  let over = false;
  const history = new AbortController();

  const hold = (h: Held) => {
    if (sorted && held.length && byTs(held[held.length - 1]!, h) > 0) sorted = false;
    held.push(h);
  };
  const unsubscribe = o.hub.subscribe(o.tenant, o.query.matchers, (stream: Stream, entries) => {
    for (const entry of entries) {
      if (held.length >= MAX_HELD_ENTRIES) {
        if (dropped.length < MAX_DROPPED) dropped.push({ timestamp: tsText(entry), labels: stream.labels });
        continue;
      }
      hold({ ts: entry.ts, pushed: { entry, labels: stream.labels } });
    }
  });

  const end = (code?: number, reason?: string) => {
    if (over) return;
    over = true;
    clearInterval(ticker);
    clearTimeout(deadline);
    history.abort();
    unsubscribe();
    held.length = 0;
    if (code !== undefined) o.sink.close(code, reason ?? "");
    o.ended();
  };

  const keyOf = (stream: Record<string, string>, ts: string, line: string) => `${ts}\u0000${line}\u0000${JSON.stringify(stream)}`;

  /** a held entry's stream and value, through the pipeline when it was pushed; undefined when dropped by it (or already sent) */
  const output = (h: Held): Held["out"] => {
    if (h.out) return h.out;
    const { entry, labels } = h.pushed!;
    const p = pipeline(entry, labels);
    if (!p) return undefined;
    const ts = tsText(entry);
    let out: Held["out"];
    if (o.categorized) {
      const c = categorize(p.labels, p.kinds);
      out = { stream: c.stream, value: [ts, p.line, c.extra] };
    } else out = { stream: p.labels, value: [ts, p.line] };
    if (historyKeys && h.ts <= historyEnd && historyKeys.has(keyOf(out.stream, ts, p.line))) return undefined;
    return out;
  };

  const message = (streams: StreamResult[]) => {
    let text = `{"streams":${streamsJson(streams)}`;
    if (dropped.length) text += `,"dropped_entries":${JSON.stringify(dropped.splice(0))}`;
    if (o.flags.length) text += `,"encodingFlags":${JSON.stringify(o.flags)}`;
    return `${text}}`;
  };

  const tick = () => {
    if (over || !historyDone || o.sink.buffered() > MAX_UNSENT_BYTES) return;
    if (!sorted) {
      held.sort(byTs);
      sorted = true;
    }
    // released once now > ts + delay_for
    const cutoff = BigInt(o.now() - o.delayMs) * 1_000_000n;
    const sliceEnd = performance.now() + SLICE_MS;
    let taken = 0;
    for (let m = 0; m < MESSAGES_PER_TICK && performance.now() < sliceEnd; m++) {
      const streams: StreamResult[] = [];
      while (streams.length < ENTRIES_PER_MESSAGE && taken < held.length && held[taken]!.ts < cutoff) {
        const out = output(held[taken++]!);
        if (out) streams.push({ stream: out.stream, values: [out.value] });
      }
      if (streams.length) o.sink.send(message(streams));
      if (taken >= held.length || held[taken]!.ts >= cutoff) break;
    }
    held.splice(0, taken);
    // no entry pushed while the history was read is left to compare with it
    if (historyKeys && !held.some((h) => h.pushed && h.ts <= historyEnd)) historyKeys = undefined;
  };

  const ticker = setInterval(tick, TAIL_TICK_MS);
  const deadline = setTimeout(() => end(INTERNAL_ERROR, "reached tail max duration limit"), o.maxDurationMs);
  // timers of their own never keep a stopping process alive: the listener closes the socket
  (ticker as { unref?: () => void }).unref?.();
  (deadline as { unref?: () => void }).unref?.();

  historyEnd = BigInt(o.now()) * 1_000_000n;
  o.history(historyEnd, history.signal).then(
    (result) => {
      if (over) return;
      historyKeys = new Set();
      for (const s of result) {
        for (const value of s.values) {
          historyKeys.add(keyOf(s.stream, value[0], value[1]));
          hold({ ts: BigInt(value[0]), out: { stream: s.stream, value } });
        }
      }
      historyDone = true;
      tick();
    },
    (err: unknown) => end(INTERNAL_ERROR, truncateReason(err instanceof Error ? err.message : String(err))),
  );

  return { stop: () => end() };
}

/** a close reason holds at most 123 bytes */
function truncateReason(text: string): string {
  const bytes = Buffer.from(text);
  return bytes.length <= 123 ? text : bytes.subarray(0, 120).toString("utf8").replace(/\uFFFD$/, "") + "...";
}
