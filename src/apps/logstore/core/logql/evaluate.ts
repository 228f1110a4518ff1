// Running a parsed query over the selected streams: log queries give streams
// of [ts, line] (limit counted across streams, newest first when backward);
// metric queries give a matrix over steps or a vector at one time.
//
// Stored chunks are scanned by tasks (scan-tasks.ts) through the source's
// task runner — the worker pool, off the event loop — and only what they keep
// comes back; chunks being written and heads (in memory) are read here in
// slices that let other requests in every few milliseconds.
import { setImmediate } from "node:timers";
import { ApiError } from "../../../../lib/errors.ts";
import { inlineRunner, type TaskRunner } from "../../../../lib/tasks.ts";
import { tsText, type Entry } from "../chunks.ts";
import { labelText } from "../push-decode.ts";
import { mergeLanes, type Run } from "../merge.ts";
import { groupLabels, linePrefilter, logTasks, WindowCounter, type LogScanInput, type LogScanResult, type MetricScanInput, type MetricScanResult } from "../scan-tasks.ts";
import type { ChunkMeta, LogStore, Stream } from "../store.ts";
import { movableBuffers, type ChunkSource } from "../columns.ts";
import { textOf, type LogQuery, type MetricQuery, type RangeAggregation, type VectorAggregation } from "./parse.ts";
import { categorize, type EntryCategories, type LabelKinds } from "./metadata.ts";
import { matchesAll, runPipeline, type Processed } from "./pipeline.ts";
import { deleteTest, touchingOf, type ActiveDelete, type DeleteInput, type DeleteTest } from "../deletion/query.ts";

export interface Source {
  store: LogStore;
  /** tenants the query reads; with several, results carry __tenant_id__ */
  tenants: string[];
  /** the most characters a line_format / label_format rendering may make (the template's default when absent) */
  maxTemplateOutput?: number;
  /** where chunk scans run (the worker pool); this thread when absent */
  runner?: TaskRunner | undefined;
  /** stops the query: its tasks are aborted and it throws the signal's reason */
  signal?: AbortSignal | undefined;
  /** the most series a metric query may hold (Loki's max_query_series; 0 or absent: no limit) */
  maxSeries?: number | undefined;
  /** a tenant's delete requests not yet processed: the lines they match are left out of answers (deletion/) */
  deletes?: ((tenant: string) => readonly ActiveDelete[]) | undefined;
}

/** chunk scans on this thread, where no pool was given */
const thisThread = inlineRunner(logTasks);

/** the longest a query reads in-memory data before letting other requests in (ms) */
const SLICE_MS = 8;

/** stored chunks scanned in one metricScans task */
const METRIC_BATCH = 16;
/** the most stored chunks scanned in one logScans task (batches grow to it from one) */
const MAX_LOG_BATCH = 16;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A query's pace: `await pace()` lets other requests in once the query has
 * held the event loop for a slice (tasks run on this thread, or a database
 * answered from memory, resolve without ever leaving it).
 */
function pacer(signal: AbortSignal | undefined) {
  let sliceEnd = performance.now() + SLICE_MS;
  return async () => {
    if (performance.now() <= sliceEnd) return;
    await nextTurn();
    signal?.throwIfAborted();
    sliceEnd = performance.now() + SLICE_MS;
  };
}

/**
 * Where a stored chunk's bytes are, asked one chunk at a time with a turn of
 * the event loop between (process-wide): a chunk kept in PGlite is read on this
 * thread, and reads queued there run back to back without letting a request
 * in, so a query with several scans in flight would hold the loop for all of
 * them at once.
 */
let sourceTurn: Promise<unknown> = Promise.resolve();
function chunkSourceInTurn(store: LogStore, chunk: ChunkMeta) {
  const read = sourceTurn.then(async () => {
    await nextTurn();
    return store.chunkSource(chunk);
  });
  sourceTurn = read.catch(() => {});
  return read;
}

/** Loki's series limit error (logqlmodel.NewSeriesLimitError) */
export const seriesLimitError = (limit: number) =>
  new ApiError(
    400,
    `maximum number of series (${limit}) reached for a single query; consider reducing query cardinality by adding more specific stream selectors, reducing the time range, or aggregating results with functions like sum(), count() or topk()`,
  );

/** a task failed because the chunk it read is damaged: the chunk is skipped and reported */
function isCorrupt(err: unknown): boolean {
  return err instanceof Error && (err.name === "ChunkCorruptError" || err.constructor?.name === "ChunkCorruptError");
}

function reportCorrupt(store: LogStore, chunk: ChunkMeta, err: unknown): void {
  const report = (store as { reportCorrupt?: (chunk: ChunkMeta, reason: string) => void }).reportCorrupt;
  report?.call(store, chunk, err instanceof Error ? err.message : String(err));
}

/** an AbortController that follows `outer` */
function linkedAbort(outer: AbortSignal | undefined): { ctl: AbortController; unlink: () => void } {
  const ctl = new AbortController();
  if (!outer) return { ctl, unlink: () => {} };
  const onAbort = () => ctl.abort(outer.reason);
  if (outer.aborted) onAbort();
  else outer.addEventListener("abort", onAbort, { once: true });
  return { ctl, unlink: () => outer.removeEventListener("abort", onAbort) };
}

export interface SelectedStream {
  stream: Stream;
  labels: Record<string, string>;
}

/**
 * The pending delete requests that touch a selected stream in [from, to]
 * (their selector matches its own labels), for its tasks, and their test of
 * the entries read here; none (the usual case): nothing is checked.
 */
function deletesOf(src: Source, s: SelectedStream, from: bigint, to: bigint): { inputs: DeleteInput[] | undefined; test: DeleteTest | undefined } {
  const all = src.deletes?.(s.stream.tenant);
  if (!all?.length) return { inputs: undefined, test: undefined };
  const touching = touchingOf(s.stream, all).filter((d) => d.to >= from && d.from < to);
  if (!touching?.length) return { inputs: undefined, test: undefined };
  return { inputs: touching.map((d) => ({ query: d.query, from: d.from, to: d.to })), test: deleteTest(touching, s.stream.labels) };
}

export function selectStreams(src: Source, query: LogQuery): SelectedStream[] {
  const multi = src.tenants.length > 1;
  const out: SelectedStream[] = [];
  for (const tenant of src.tenants) {
    for (const stream of src.store.streams(tenant)) {
      const labels = multi ? { ...stream.labels, __tenant_id__: tenant } : stream.labels;
      if (matchesAll(query.matchers, labels)) out.push({ stream, labels });
    }
  }
  return out;
}

/** the text of a stream's own labels object (never changed once made), kept across queries */
const streamLabelTexts = new WeakMap<Record<string, string>, string>();

export interface StreamResult {
  stream: Record<string, string>;
  /** [ts, line]; categorized (the categorize-labels encoding): [ts, line, its metadata and parsed labels] */
  values: Array<[string, string] | [string, string, EntryCategories]>;
}

/** an entry a task has already run through the pipeline: its output line, and its output labels (and their categories) when they are not the stream's */
interface ScannedEntry extends Entry {
  scanned: true;
  labels: Record<string, string> | undefined;
  kinds: LabelKinds | undefined;
}

/** the kept entries of a scan, oldest first (the order a run holds them in) */
function entriesOf(r: LogScanResult, backward: boolean): ScannedEntry[] {
  const n = r.lines.length;
  const out = new Array<ScannedEntry>(n);
  for (let k = 0; k < n; k++) {
    const i = backward ? n - 1 - k : k;
    const at = r.labelIndex ? r.labelIndex[i]! : -1;
    out[k] = { ts: r.ts[i]!, line: r.lines[i]!, scanned: true, labels: at >= 0 ? r.labelSets[at] : undefined, kinds: at >= 0 ? r.labelKinds?.[at] : undefined };
  }
  return out;
}

/**
 * Runs stored chunks' scans ahead of the merge: when the merge asks for one,
 * the next few in the order it will ask (by their bound in the query's
 * direction) are started too, at most `window` tasks at once beyond the one
 * asked. Consecutive chunks are scanned together, one task for a batch: a
 * batch starts at one chunk and doubles with each one the merge asks for, up
 * to MAX_LOG_BATCH, so a query answered by its first chunk scans little
 * ahead, and a scan through thousands of chunks (a rare literal that the
 * chunks' blooms rule out) pays one message each way per batch, not per chunk.
 */
function prefetcher(window: number, scanBatch: (items: ReadonlyArray<{ chunk: ChunkMeta | undefined; input: () => Promise<LogScanInput | undefined> }>) => Promise<Array<readonly Entry[]>>) {
  type Item = { run: Run; chunk: ChunkMeta | undefined; input: () => Promise<LogScanInput | undefined>; started?: Promise<readonly Entry[]> };
  const order: Item[] = [];
  let asked = -1;
  let batch = 1;
  let inFlight = 0;
  const startFrom = (i: number) => {
    const items: Item[] = [];
    for (let k = i; k < order.length && items.length < batch && !order[k]!.started; k++) items.push(order[k]!);
    inFlight++;
    const all = scanBatch(items).finally(() => inFlight--);
    // a scan started ahead and never asked for (the limit was reached first) must not be an unhandled rejection
    all.catch(() => {});
    items.forEach((item, k) => (item.started = all.then((out) => out[k]!)));
    items.forEach((item) => item.started!.catch(() => {}));
  };
  const startUpTo = (k: number) => {
    for (let i = 0; i <= Math.min(k, order.length - 1); i++) {
      if (order[i]!.started) continue;
      if (i > asked && inFlight >= window) return;
      startFrom(i);
    }
  };
  return {
    add(run: Run, input: () => Promise<LogScanInput | undefined>): Run {
      const item: Item = { run, chunk: run.chunk, input };
      order.push(item);
      return {
        from: run.from,
        to: run.to,
        ...(run.chunk ? { chunk: run.chunk } : {}),
        load: () => {
          const k = order.indexOf(item);
          // the merge reads on: the batches started from now on are larger
          if (k > asked) batch = Math.min(MAX_LOG_BATCH, batch * 2);
          asked = Math.max(asked, k);
          if (!item.started) startFrom(k);
          startUpTo(order.length - 1);
          return item.started!;
        },
      };
    },
    /** the order the merge will read them in */
    sort(backward: boolean) {
      order.sort((a, b) => (backward ? (a.run.to > b.run.to ? -1 : a.run.to < b.run.to ? 1 : 0) : a.run.from < b.run.from ? -1 : a.run.from > b.run.from ? 1 : 0));
    },
  };
}

/**
 * The first `limit` entries through the pipeline in time order across the
 * selected streams (newest first when backward), read by a merge that stops
 * once the answer is decided. Equal timestamps keep stream order. Results are
 * grouped by output labels in order of first appearance. Stored chunks are
 * scanned by tasks (newest first when backward, a few ahead of the merge).
 * An entry's labels include its structured metadata; `categorized` (Loki's
 * categorize-labels encoding): results are grouped by the stream's labels
 * alone and each value carries its metadata and parsed labels.
 */
export async function runLogQuery(src: Source, q: LogQuery, from: bigint, to: bigint, limit: number, backward: boolean, categorized = false): Promise<StreamResult[]> {
  const selected = selectStreams(src, q);
  const byStream = new Map<string, StreamResult>();
  // the output key of a label set: the stream's own labels object is reused while no stage changes it
  const keys = streamLabelTexts;
  // the texts of label sets scan tasks made (one object for all the entries of a set), for this query
  const setKeys = new WeakMap<Record<string, string>, string>();
  const keyOf = (labels: Record<string, string>, own: boolean) => {
    const memo = own ? keys : setKeys;
    let key = memo.get(labels);
    if (key === undefined) memo.set(labels, (key = labelText(labels)));
    return key;
  };
  let taken = 0;
  if (limit <= 0) return [];
  const text = textOf(q);
  const pipeline = entryPipeline(q, src.maxTemplateOutput, categorized);
  const runner = src.runner ?? thisThread;
  const { ctl, unlink } = linkedAbort(src.signal);
  const ahead = prefetcher(Math.max(1, 2 * runner.size), async (items) => {
    const inputs: LogScanInput[] = [];
    const at: number[] = [];
    for (let k = 0; k < items.length; k++) {
      const input = await items[k]!.input();
      if (!input) continue;
      inputs.push(input);
      at.push(k);
    }
    const out: Array<readonly Entry[]> = items.map(() => []);
    if (!inputs.length) return out;
    const scanned = await runner.run<LogScanResult[]>("logScans", inputs, { signal: ctl.signal, transfer: movableBuffers(inputs.map((i) => i.source)) });
    await pace();
    scanned.forEach((r, j) => {
      const item = items[at[j]!]!;
      if (r.corrupt !== undefined) {
        if (item.chunk) reportCorrupt(src.store, item.chunk, new Error(r.corrupt));
      }
      else out[at[j]!] = entriesOf(r, backward);
    });
    return out;
  });
  const pace = pacer(ctl.signal);
  const deletes = selected.map((s) => deletesOf(src, s, from, to));
  const lanes = selected.map((s, lane) => ({
    runs: src.store.runs(s.stream).map((run) => {
      const chunk = run.chunk;
      // stored chunks are scanned by tasks; chunks not yet written too when the query filters (it may
      // read through many of them), while a bare selector, which stops at its limit, reads them here
      // (no wait behind the encoding tasks); without the query's text (a query built by hand) all
      // are read here, as heads are
      const sourceOf = chunk ? () => chunkSourceInTurn(src.store, chunk) : q.stages.length ? run.source : undefined;
      if (!sourceOf || text === undefined || run.to < from || run.from >= to) return run;
      return ahead.add(run, async () => {
        const source = await sourceOf();
        if (!source) return undefined;
        return { source, query: text, labels: s.labels, from, to, limit, backward, maxTemplateOutput: src.maxTemplateOutput, categorize: categorized, deletes: deletes[lane]!.inputs };
      });
    }),
  }));
  ahead.sort(backward);
  try {
    await mergeLanes(
      lanes,
      from,
      to,
      backward,
      (lane, e) => {
        const s = selected[lane]!;
        const scanned = (e as ScannedEntry).scanned ? (e as ScannedEntry) : undefined;
        // entries read here (tasks leave deleted ones out themselves)
        if (!scanned && deletes[lane]!.test?.(e.ts, e.line, e.metadata)) return true;
        const p: Processed | undefined = scanned ? { line: e.line, labels: scanned.labels ?? s.labels, kinds: scanned.kinds } : pipeline(e, s.labels);
        if (!p) return true;
        if (categorized) {
          const c = scanned ? categorizedSet(p) : categorize(p.labels, p.kinds);
          const key = keyOf(c.stream, c.stream === s.labels);
          let r = byStream.get(key);
          if (!r) byStream.set(key, (r = { stream: c.stream, values: [] }));
          r.values.push([tsText(e), p.line, c.extra]);
        } else {
          const key = keyOf(p.labels, p.labels === s.labels);
          let r = byStream.get(key);
          if (!r) byStream.set(key, (r = { stream: p.labels, values: [] }));
          r.values.push([tsText(e), p.line]);
        }
        return ++taken < limit;
      },
      { signal: ctl.signal, sliceMs: SLICE_MS },
    );
  } finally {
    // scans started ahead that the answer did not need stop now
    ctl.abort();
    unlink();
  }
  src.signal?.throwIfAborted();
  return [...byStream.values()];
}

/**
 * A log query's pipeline for an entry read on this thread (a head's, or one
 * just pushed): the scans' byte prefilter first (a line the pipeline would
 * drop skips it), then the stages; undefined when the entry is dropped.
 */
export function entryPipeline(q: LogQuery, maxTemplateOutput: number | undefined, categorized: boolean): (e: Entry, labels: Record<string, string>) => Processed | undefined {
  const pre = linePrefilter(q.stages);
  return (e, labels) => (pre && !pre(e.line, labels, e.metadata) ? undefined : runPipeline(q.stages, e.line, labels, maxTemplateOutput, e.metadata, categorized));
}

/** the split of a scanned entry's labels by category, remembered per label set the scan made (shared by its entries) */
const categorizedSets = new WeakMap<Record<string, string>, ReturnType<typeof categorize>>();
function categorizedSet(p: Processed): ReturnType<typeof categorize> {
  let c = categorizedSets.get(p.labels);
  if (!c) categorizedSets.set(p.labels, (c = categorize(p.labels, p.kinds)));
  return c;
}

export interface Series {
  metric: Record<string, string>;
  /** step time (ms) -> value */
  points: Map<number, number>;
}

/** the step times of a range query: start, start+step, ... up to end */
export function stepsOf(startMs: number, endMs: number, stepMs: number): number[] {
  const out: number[] = [];
  for (let t = startMs; t <= endMs; t += stepMs) out.push(t);
  return out;
}

/** an output series of a range aggregation being summed: per-step counts and bytes, and where it first appeared */
interface Accumulated {
  labels: Record<string, string>;
  /** stream index, first timestamp, run rank, position: output series are ordered by first appearance */
  order: [number, bigint, number, number];
  counts: Float64Array;
  bytes: Float64Array;
}

const earlier = (a: Accumulated["order"], b: Accumulated["order"]) =>
  a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] !== b[2] ? a[2] < b[2] : a[3] < b[3];

/**
 * Per output series of a range aggregation's log query: entries and line
 * bytes per step window. Stored chunks are counted by tasks (all in range,
 * a few at a time); chunks being written and heads here, in slices. With
 * `grouping` (a sum by/without over count or bytes pushed down) series are
 * reduced to the grouping's labels as they are counted.
 */
async function accumulate(src: Source, r: RangeAggregation, steps: number[], text: string | undefined, grouping: VectorAggregation["grouping"] | undefined, signal: AbortSignal) {
  const stepTimes = Float64Array.from(steps);
  const from = BigInt(steps[0]! - r.rangeMs) * 1_000_000n + 1n;
  const to = BigInt(steps.at(-1)!) * 1_000_000n + 1n;
  const runner = src.runner ?? thisThread;
  const out = new Map<string, Accumulated>();
  const pace = pacer(signal);
  const add = (labels: Record<string, string>, order: Accumulated["order"], counts: Float64Array, bytes: Float64Array) => {
    const key = labelText(labels);
    let g = out.get(key);
    if (!g) {
      out.set(key, (g = { labels, order, counts: new Float64Array(steps.length), bytes: new Float64Array(steps.length) }));
      if (src.maxSeries && out.size > src.maxSeries) throw seriesLimitError(src.maxSeries);
    } else if (earlier(order, g.order)) g.order = order;
    for (let i = 0; i < steps.length; i++) {
      g.counts[i]! += counts[i]!;
      g.bytes[i]! += bytes[i]!;
    }
  };
  const jobs: Array<() => Promise<void>> = [];
  const storedChunks: Array<{ lane: number; rank: number; labels: Record<string, string>; chunk: ChunkMeta | undefined; source: () => Promise<ChunkSource | undefined> }> = [];
  // in-memory runs are read as they are now (a head changes while the query waits)
  const inMemory: Array<{ lane: number; rank: number; entries: readonly Entry[] }> = [];
  const selected = selectStreams(src, r.query);
  const deletes = selected.map((s) => deletesOf(src, s, from, to));
  selected.forEach((s, lane) => {
    src.store.runs(s.stream).forEach((run, rank) => {
      if (run.to < from || run.from >= to) return;
      const chunk = run.chunk;
      // stored chunks and chunks not yet written: counted by tasks
      const sourceOf = chunk ? () => chunkSourceInTurn(src.store, chunk) : run.source;
      if (sourceOf && text !== undefined) {
        storedChunks.push({ lane, rank, labels: s.labels, chunk, source: sourceOf });
        return;
      }
      const loaded = run.load();
      if (loaded instanceof Promise) {
        jobs.push(async () => {
          inMemory.push({ lane, rank, entries: await loaded });
        });
        return;
      }
      inMemory.push({ lane, rank, entries: run.live ? loaded.slice() : loaded });
    });
  });
  // stored chunks, a batch of them per task (one message each way for up to METRIC_BATCH chunks)
  for (let at = 0; at < storedChunks.length; at += METRIC_BATCH) {
    const batch = storedChunks.slice(at, at + METRIC_BATCH);
    jobs.push(async () => {
      const inputs: MetricScanInput[] = [];
      const scanned: typeof batch = [];
      for (const item of batch) {
        const source = await item.source();
        if (!source) continue;
        inputs.push({ source, query: text!, labels: item.labels, from, to, steps: stepTimes, rangeMs: r.rangeMs, grouping, maxSeries: src.maxSeries, maxTemplateOutput: src.maxTemplateOutput, deletes: deletes[item.lane]!.inputs });
        scanned.push(item);
      }
      if (!inputs.length) return;
      const results = await runner.run<MetricScanResult[]>("metricScans", inputs, { signal, transfer: movableBuffers(inputs.map((i) => i.source)) });
      await pace();
      results.forEach((res, k) => {
        const { lane, rank, labels: streamLabels, chunk } = scanned[k]!;
        if (res.corrupt !== undefined) {
          if (chunk) reportCorrupt(src.store, chunk, new Error(res.corrupt));
          return;
        }
        if (res.tooManySeries) throw seriesLimitError(src.maxSeries!);
        for (const g of res.groups) {
          const labels = g.labels ?? (grouping ? groupLabels(streamLabels, grouping) : streamLabels);
          add(labels, [lane, g.firstTs, rank, g.firstPos], g.counts, g.bytes);
        }
      });
    });
  }
  // at most twice the pool's size of tasks in flight
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      signal.throwIfAborted();
      await jobs[next++]!();
    }
  };
  const pending = Array.from({ length: Math.min(jobs.length, Math.max(1, 2 * runner.size)) }, worker);
  const stored = Promise.all(pending);
  stored.catch(() => {});
  // then in-memory runs here, in slices
  const inMemoryDone = async () => {
    await stored;
    // the scans' byte prefilters, on the strings: lines the pipeline would drop skip it
    const pre = linePrefilter(r.query.stages);
    for (const { lane, rank, entries } of inMemory) {
      const s = selected[lane]!;
      const groups = new Map<string, { labels: Record<string, string>; order: Accumulated["order"]; counter: WindowCounter }>();
      for (let i = 0; i < entries.length; i++) {
        if ((i & 1023) === 1023) await pace();
        const e = entries[i]!;
        if (e.ts < from || e.ts >= to) continue;
        if (pre && !pre(e.line, s.labels, e.metadata)) continue;
        if (deletes[lane]!.test?.(e.ts, e.line, e.metadata)) continue;
        const p = runPipeline(r.query.stages, e.line, s.labels, src.maxTemplateOutput, e.metadata);
        if (!p) continue;
        const labels = grouping ? groupLabels(p.labels, grouping) : p.labels;
        const key = labelText(labels);
        let g = groups.get(key);
        if (!g) groups.set(key, (g = { labels, order: [lane, e.ts, rank, i], counter: new WindowCounter(stepTimes, r.rangeMs) }));
        g.counter.add(Number(e.ts / 1_000_000n), Buffer.byteLength(e.line));
      }
      for (const g of groups.values()) {
        const { counts, bytes } = g.counter.totals();
        add(g.labels, g.order, counts, bytes);
      }
    }
  };
  await inMemoryDone();
  return [...out.values()].sort((a, b) => (earlier(a.order, b.order) ? -1 : earlier(b.order, a.order) ? 1 : 0));
}

async function rangeAggregation(src: Source, r: RangeAggregation, steps: number[], text: string | undefined, grouping: VectorAggregation["grouping"] | undefined, signal: AbortSignal): Promise<Series[]> {
  const groups = await accumulate(src, r, steps, text, grouping, signal);
  const seconds = r.rangeMs / 1000;
  const out: Series[] = [];
  for (const g of groups) {
    const points = new Map<number, number>();
    steps.forEach((t, i) => {
      const count = g.counts[i]!;
      if (!count) return;
      const sum = g.bytes[i]!;
      const value = r.op === "count_over_time" ? count : r.op === "rate" ? count / seconds : r.op === "bytes_over_time" ? sum : sum / seconds;
      points.set(t, value);
    });
    if (points.size) out.push({ metric: g.labels, points });
  }
  return out;
}

function vectorAggregation(v: VectorAggregation, inner: Series[], steps: number[]): Series[] {
  if (v.op === "topk" || v.op === "bottomk") {
    const keep = new Map<Series, Map<number, number>>();
    for (const t of steps) {
      const groups = new Map<string, Series[]>();
      for (const s of inner) {
        if (!s.points.has(t)) continue;
        const key = labelText(groupLabels(s.metric, v.grouping));
        groups.set(key, [...(groups.get(key) ?? []), s]);
      }
      for (const members of groups.values()) {
        members.sort((a, b) => (v.op === "topk" ? b.points.get(t)! - a.points.get(t)! : a.points.get(t)! - b.points.get(t)!));
        for (const s of members.slice(0, v.param)) {
          let m = keep.get(s);
          if (!m) keep.set(s, (m = new Map()));
          m.set(t, s.points.get(t)!);
        }
      }
    }
    return [...keep].map(([s, points]) => ({ metric: s.metric, points }));
  }
  const groups = new Map<string, { metric: Record<string, string>; members: Series[] }>();
  for (const s of inner) {
    const metric = groupLabels(s.metric, v.grouping);
    const key = labelText(metric);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { metric, members: [] }));
    g.members.push(s);
  }
  const out: Series[] = [];
  for (const g of groups.values()) {
    const points = new Map<number, number>();
    for (const t of steps) {
      const values = g.members.map((s) => s.points.get(t)).filter((x): x is number => x !== undefined);
      if (!values.length) continue;
      const sum = values.reduce((a, b) => a + b, 0);
      const value = v.op === "sum" ? sum : v.op === "avg" ? sum / values.length : v.op === "min" ? Math.min(...values) : v.op === "max" ? Math.max(...values) : values.length;
      points.set(t, value);
    }
    if (points.size) out.push({ metric: g.metric, points });
  }
  return out;
}

export async function runMetricQuery(src: Source, q: MetricQuery, steps: number[]): Promise<Series[]> {
  const { ctl, unlink } = linkedAbort(src.signal);
  try {
    return await evaluate(src, q, steps, textOf(q), ctl.signal);
  } finally {
    ctl.abort();
    unlink();
  }
}

async function evaluate(src: Source, q: MetricQuery, steps: number[], text: string | undefined, signal: AbortSignal): Promise<Series[]> {
  if (q.kind === "range") return rangeAggregation(src, q, steps, text, undefined, signal);
  // a sum of counts or bytes adds integers: its grouping is applied as the chunks are counted, so only the groups are held
  const inner = q.inner;
  if (q.op === "sum" && inner.kind === "range" && (inner.op === "count_over_time" || inner.op === "bytes_over_time")) {
    const grouped = await rangeAggregation(src, inner, steps, text, q.grouping ?? { without: false, labels: [] }, signal);
    return vectorAggregation(q, grouped, steps);
  }
  return vectorAggregation(q, await evaluate(src, inner, steps, text, signal), steps);
}

/** Prometheus-style sample value text */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "+Inf" : "-Inf";
  return String(v);
}
