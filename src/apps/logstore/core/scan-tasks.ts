// The log store's tasks for the worker pool (lib/tasks.ts): decoding and
// scanning chunks for queries, encoding chunks for the write path.
//
// A scan filters on bytes and materialises late: `|=` / `!=` literals (and the
// literal every match of a `|~` regex needs) are searched in the chunk's whole
// UTF-8 line block and the hits mapped to lines through `offsets`; regexes run
// only on the lines that are left, and only lines that survive every filter
// become strings. A task's input is structured-cloneable (a chunk source, the
// query's text — parsed here, remembered — and the stream's labels), so it
// runs the same on a worker thread or on this one.
import { Buffer } from "node:buffer";
import type { TaskContext, TaskFn } from "../../../lib/tasks.ts";
import { literalBranches, requiredLiteral } from "../../../lib/re2-fast.ts";
import { encodeChunk2, type ChunkInput } from "./chunk-format.ts";
import { decodeColumns, readSource, sourceMayContain, type ChunkColumns, type ChunkSource } from "./columns.ts";
import { parseLogQL, type LabelFilter, type LogQuery, type Matcher, type MetricQuery, type RangeAggregation, type Stage, type VectorAggregation } from "./logql/parse.ts";
import { metadataGives, withMetadata, type LabelKinds } from "./logql/metadata.ts";
import { runPipeline } from "./logql/pipeline.ts";
import { memoryPacer } from "../../../platform/memory.ts";
import { deleteTestOf, type DeleteInput } from "./deletion/query.ts";
import { deletionTasks } from "./deletion/tasks.ts";

/** lines between two looks at `ctx.cancelled()` */
const POLL_EVERY = 4096;

/** what a scan needs of a query, worked out once per query text */
interface Plan {
  stages: readonly Stage[];
  /** literals every kept line contains (|= and the required literal of |~), searched on bytes */
  must: Buffer[];
  /** literals no kept line contains (!=) */
  mustNot: Buffer[];
  /**
   * sets of which every kept line contains at least one member: the
   * alternatives' literals of a |~ regex, and `value` or a backslash for an
   * equality label filter after json/logfmt (skipped when the stream has the
   * label: the parsers do not replace it, so the line does not decide; and for
   * an entry whose structured metadata gives the label: nor does it)
   */
  anyOf: Array<{ needles: Buffer[]; unlessLabel?: string }>;
  /** regex filters still to run on the candidate lines, in pipeline order */
  regexes: Array<{ keep: boolean; test: (line: string) => boolean }>;
  /** the literal texts of `must`, for chunkMayContain */
  literals: string[];
  /** true when every stage is a line filter handled above: no pipeline per line */
  filtersOnly: boolean;
  /** true when no stage reads the line (metric queries then decode timestamps and sizes only) */
  noStages: boolean;
}

function planOf(stages: readonly Stage[]): Plan {
  const plan: Plan = { stages, must: [], mustNot: [], anyOf: [], regexes: [], literals: [], filtersOnly: true, noStages: stages.length === 0 };
  let json = false;
  let labelsFromLine = true;
  for (const s of stages) {
    // line filters after a line_format see the formatted line: those run in the pipeline
    if (s.kind === "line_format") break;
    // labels after a label_format or a regexp parser may be made of anything: no label prefilter past them
    if (s.kind === "label_format" || s.kind === "regexp") labelsFromLine = false;
    if (s.kind === "json") json = true;
    if (s.kind === "labels" && labelsFromLine) {
      for (const m of equalities(s.filter)) {
        const needles = labelNeedles(m.name, m.value, json);
        if (needles) plan.anyOf.push({ needles, unlessLabel: m.name });
      }
    }
    if (s.kind !== "line") continue;
    const f = s.filter;
    if (f.op === "|=") {
      plan.must.push(Buffer.from(f.value, "utf8"));
      plan.literals.push(f.value);
    } else if (f.op === "!=") {
      plan.mustNot.push(Buffer.from(f.value, "utf8"));
    } else {
      const re = f.re!;
      plan.regexes.push({ keep: f.op === "|~", test: (line) => re.test(line) });
      if (f.op === "!~") continue;
      // a literal per alternative; a pattern with flags has no such set, but may have one literal every match needs
      const needed = literalBranches(f.value)?.map((b) => b.literal) ?? [requiredLiteral(f.value)].filter((l) => l !== undefined);
      if (needed.length === 1) {
        plan.must.push(Buffer.from(needed[0]!, "utf8"));
        plan.literals.push(needed[0]!);
      } else if (needed.length) plan.anyOf.push({ needles: needed.map((l) => Buffer.from(l, "utf8")) });
    }
  }
  plan.filtersOnly = stages.every((s) => s.kind === "line");
  return plan;
}

/** the `name="value"` matchers a label filter requires (the conjuncts of an and; none under an or) */
function equalities(f: LabelFilter): Matcher[] {
  if (f.kind === "and") return [...equalities(f.left), ...equalities(f.right)];
  return f.kind === "match" && f.matcher.op === "=" ? [f.matcher] : [];
}

const BACKSLASH = Buffer.from("\\");

/**
 * What a line's bytes must contain (one of) for json/logfmt to give the label
 * `name` the value `value`: the value itself, or a backslash (an escape in a
 * JSON string or a quoted logfmt value could spell it otherwise). Undefined
 * when the line need not show it: an empty value (a missing label is ""), the
 * parsers' own error labels, a value JSON could spell as a number (2e2 is
 * "200", 1e999 "Infinity"), or one holding U+FFFD (what invalid UTF-8 reads as).
 */
function labelNeedles(name: string, value: string, json: boolean): Buffer[] | undefined {
  if (value === "" || name.startsWith("__error")) return undefined;
  if (json && /^-?(?:[0-9]|Infinity$)/.test(value)) return undefined;
  if (value.includes("\ufffd")) return undefined;
  return [Buffer.from(value, "utf8"), BACKSLASH];
}

type LinePrefilter = (line: string, streamLabels: Record<string, string>, metadata?: Record<string, string>) => boolean;
const linePrefilters = new WeakMap<readonly Stage[], LinePrefilter | null>();

/**
 * The scans' byte prefilters as a test of a line read here (heads, chunks
 * being written): false when the pipeline would drop the line; undefined when
 * the stages have none. (A substring of the string is a substring of its
 * UTF-8 bytes and back.)
 */
export function linePrefilter(stages: readonly Stage[]): LinePrefilter | undefined {
  let f = linePrefilters.get(stages);
  if (f === undefined) {
    const plan = planOf(stages);
    const text = (b: Buffer) => b.toString("utf8");
    const must = plan.must.map(text);
    const mustNot = plan.mustNot.map(text);
    const anyOf = plan.anyOf.map((a) => ({ needles: a.needles.map(text), unlessLabel: a.unlessLabel }));
    f = must.length || mustNot.length || anyOf.length
      ? (line, labels, metadata) => {
          for (const m of must) if (!line.includes(m)) return false;
          for (const m of mustNot) if (line.includes(m)) return false;
          for (const a of anyOf) {
            if (a.unlessLabel !== undefined && (a.unlessLabel in labels || (metadata && metadataGives(metadata, labels, a.unlessLabel)))) continue;
            if (!a.needles.some((n) => line.includes(n))) return false;
          }
          return true;
        }
      : null;
    linePrefilters.set(stages, f);
  }
  return f ?? undefined;
}

const MAX_PLANS = 256;
const plans = new Map<string, { query: LogQuery; plan: Plan; range?: RangeAggregation; grouping?: VectorAggregation["grouping"] }>();

/** the query of a text (the main thread has parsed it already: it is valid), remembered */
function compiled(text: string) {
  let hit = plans.get(text);
  if (hit) return hit;
  const q = parseLogQL(text);
  let query: LogQuery;
  let range: RangeAggregation | undefined;
  if (q.kind === "log") query = q;
  else {
    let m: MetricQuery = q;
    while (m.kind === "vector") m = m.inner;
    range = m;
    query = m.query;
  }
  hit = { query, plan: planOf(query.stages), ...(range ? { range } : {}) };
  if (plans.size >= MAX_PLANS) plans.delete(plans.keys().next().value!);
  plans.set(text, hit);
  return hit;
}

/** the first index in [lo, hi) whose timestamp is >= t */
function lowerBound(ts: BigInt64Array, t: bigint, lo = 0, hi = ts.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** the line holding byte `p`: the largest i in [lo, hi) with offsets[i] <= p */
function lineAt(offsets: Uint32Array, p: number, lo: number, hi: number): number {
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (offsets[mid]! <= p) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** marks (1) the lines of [lo, hi) that contain `needle`, searching the line block once */
function linesContaining(c: ChunkColumns, block: Buffer, needle: Buffer, lo: number, hi: number): Uint8Array {
  const out = new Uint8Array(c.count);
  const end = c.offsets[hi]!;
  if (needle.length === 0) {
    out.fill(1, lo, hi);
    return out;
  }
  let from = c.offsets[lo]!;
  while (from < end) {
    const p = block.indexOf(needle, from);
    if (p < 0 || p + needle.length > end) break;
    const i = lineAt(c.offsets, p, lo, hi);
    const lineEnd = c.offsets[i + 1]!;
    if (p + needle.length <= lineEnd) out[i] = 1;
    // a hit that runs past its line's end: no later start in that line fits either
    from = lineEnd;
  }
  return out;
}

/** the candidate lines of [lo, hi) after the byte filters (1 = still in) */
function byteFilter(c: ChunkColumns, plan: Plan, lo: number, hi: number, labels: Record<string, string>): Uint8Array {
  const block = Buffer.from(c.lines.buffer, c.lines.byteOffset, c.lines.byteLength);
  let keep: Uint8Array | undefined;
  for (const needle of plan.must) {
    const hits = linesContaining(c, block, needle, lo, hi);
    if (!keep) keep = hits;
    else for (let i = lo; i < hi; i++) keep[i]! &= hits[i]!;
  }
  for (const set of plan.anyOf) {
    if (set.unlessLabel !== undefined && set.unlessLabel in labels) continue;
    const hits = linesContaining(c, block, set.needles[0]!, lo, hi);
    for (let k = 1; k < set.needles.length; k++) {
      const more = linesContaining(c, block, set.needles[k]!, lo, hi);
      for (let i = lo; i < hi; i++) hits[i]! |= more[i]!;
    }
    // an entry whose metadata gives the label passes whatever its line holds
    if (set.unlessLabel !== undefined && c.metadata) markMetadataLabel(c.metadata, labels, set.unlessLabel, lo, hi, hits);
    if (!keep) keep = hits;
    else for (let i = lo; i < hi; i++) keep[i]! &= hits[i]!;
  }
  if (!keep) {
    keep = new Uint8Array(c.count);
    keep.fill(1, lo, hi);
  }
  for (const needle of plan.mustNot) {
    const hits = linesContaining(c, block, needle, lo, hi);
    for (let i = lo; i < hi; i++) if (hits[i]) keep[i] = 0;
  }
  return keep;
}

/** marks (1) the entries of [lo, hi) whose structured metadata gives them the label `name` */
function markMetadataLabel(metadata: ReadonlyArray<Record<string, string> | undefined>, labels: Record<string, string>, name: string, lo: number, hi: number, hits: Uint8Array): void {
  for (let i = lo; i < hi; i++) {
    const m = metadata[i];
    if (m && metadataGives(m, labels, name)) hits[i] = 1;
  }
}

/**
 * Calls `visit` with each line of [lo, hi) (newest first when backward) that
 * passes the byte filters and then the regex filters, as a string, until it
 * returns false or the task is cancelled.
 */
function eachSurvivor(c: ChunkColumns, plan: Plan, labels: Record<string, string>, lo: number, hi: number, backward: boolean, ctx: TaskContext, visit: (i: number, line: string) => boolean, strings = true): void {
  const keep = byteFilter(c, plan, lo, hi, labels);
  const block = Buffer.from(c.lines.buffer, c.lines.byteOffset, c.lines.byteLength);
  const step = backward ? -1 : 1;
  const end = backward ? lo - 1 : hi;
  let polled = 0;
  next: for (let i = backward ? hi - 1 : lo; i !== end; i += step) {
    if (++polled === POLL_EVERY) {
      polled = 0;
      if (ctx.cancelled()) return;
    }
    if (!keep[i]) continue;
    // a count of lines that passed byte filters only needs no string
    const line = strings ? block.toString("utf8", c.offsets[i]!, c.offsets[i + 1]!) : "";
    for (const r of plan.regexes) if (r.test(line) !== r.keep) continue next;
    if (!visit(i, line)) return;
  }
}

/** the chunk's columns, or undefined when a token filter says no line can match */
/**
 * Chunks this worker decoded lately, by file range, least recently used first, at most
 * DECODED_CACHE_BYTES of line bytes: a dashboard's queries read the same chunks again and again
 * (a file range never holds another chunk while the process runs: segment numbers only grow).
 */
const DECODED_CACHE_BYTES = 48 * 1024 * 1024;
const decodedCache = new Map<string, ChunkColumns>();
let decodedCacheBytes = 0;

function cachedColumns(key: string): ChunkColumns | undefined {
  const hit = decodedCache.get(key);
  if (hit) {
    decodedCache.delete(key);
    decodedCache.set(key, hit);
  }
  return hit;
}

function cacheColumns(key: string, c: ChunkColumns): void {
  const size = c.lines.length + c.ts.byteLength + c.offsets.byteLength;
  if (size > DECODED_CACHE_BYTES / 8) return;
  while (decodedCache.size && decodedCacheBytes + size > DECODED_CACHE_BYTES) {
    const [oldest, old] = decodedCache.entries().next().value!;
    decodedCache.delete(oldest);
    decodedCacheBytes -= old.lines.length + old.ts.byteLength + old.offsets.byteLength;
  }
  decodedCache.set(key, c);
  decodedCacheBytes += size;
}

function columnsOf(source: ChunkSource, plan: Plan, lines: boolean): ChunkColumns | undefined {
  if (source.kind === "columns") return source.columns;
  const key = source.kind === "file" ? `${source.path}:${source.offset}:${source.length}` : undefined;
  // with its lines, a cached chunk serves every query; without (timestamps and sizes only), only those
  const cached = key === undefined ? undefined : (cachedColumns(`${key}:lines`) ?? (lines ? undefined : cachedColumns(key)));
  // (the scan's byte filters do what the bloom would)
  if (cached) return cached;
  // the bloom filter is read alone first (a few percent of a file chunk): most chunks stop there
  if (plan.literals.length && !sourceMayContain(source, plan.literals)) return undefined;
  let blob: Uint8Array;
  try {
    blob = readSource(source);
  } catch (err) {
    // a segment retention removed after the query listed its chunks: the chunk is gone, not damaged
    if ((err as { code?: string }).code === "ENOENT") return undefined;
    throw err;
  }
  const c = decodeColumns(blob, { lines });
  if (key !== undefined) cacheColumns(lines ? `${key}:lines` : key, c);
  return c;
}


export interface LogScanInput {
  source: ChunkSource;
  /** the LogQL text of a log query */
  query: string;
  /** the stream's labels (with __tenant_id__ when several tenants are read) */
  labels: Record<string, string>;
  /** [from, to) in ns */
  from: bigint;
  to: bigint;
  limit: number;
  backward: boolean;
  maxTemplateOutput?: number | undefined;
  /** record the labels' categories (the categorize-labels encoding): `labelKinds` */
  categorize?: boolean | undefined;
  /** pending delete requests whose selectors match the stream: the lines they delete are left out (deletion/) */
  deletes?: DeleteInput[] | undefined;
}

export interface LogScanResult {
  /** the kept entries in the chunk's order (newest first when backward) */
  ts: BigInt64Array;
  lines: string[];
  /** output label sets changed by a stage; `labelIndex[i]` points into it, -1 for the stream's labels */
  labelSets: Array<Record<string, string>>;
  /** with `categorize`: the categories of each of `labelSets` (metadata.ts) */
  labelKinds?: Array<LabelKinds | undefined> | undefined;
  labelIndex: Int32Array | undefined;
  /** in a batch (logScans): the chunk failed its checks (ChunkCorruptError's message) */
  corrupt?: string | undefined;
  /** lines and line bytes the scan looked at */
  scannedLines: number;
  scannedBytes: number;
}

const emptyScan = (): LogScanResult => ({ ts: new BigInt64Array(0), lines: [], labelSets: [], labelIndex: undefined, scannedLines: 0, scannedBytes: 0 });

export function logScan(input: LogScanInput, ctx: TaskContext): LogScanResult {
  const { plan } = compiled(input.query);
  const c = columnsOf(input.source, plan, true);
  if (!c) return emptyScan();
  const lo = lowerBound(c.ts, input.from);
  const hi = lowerBound(c.ts, input.to, lo);
  if (lo >= hi || input.limit <= 0) return emptyScan();
  const ts: bigint[] = [];
  const lines: string[] = [];
  const labelSets: Array<Record<string, string>> = [];
  const labelKinds: Array<LabelKinds | undefined> | undefined = input.categorize ? [] : undefined;
  const setIndex = new Map<string, number>();
  let labelIndex: number[] | undefined;
  const track = input.categorize === true;
  const gone = deleteTestOf(input.deletes, input.labels);
  eachSurvivor(c, plan, input.labels, lo, hi, input.backward, ctx, (i, line) => {
    if (gone?.(c.ts[i]!, line, c.metadata?.[i])) return true;
    let outLine = line;
    let at = -1;
    const metadata = c.metadata?.[i];
    let labels = input.labels;
    let kinds: LabelKinds | undefined;
    if (!plan.filtersOnly) {
      const p = runPipeline(plan.stages, line, input.labels, input.maxTemplateOutput, metadata, track);
      if (!p) return true;
      outLine = p.line;
      labels = p.labels;
      kinds = p.kinds;
    } else if (metadata) {
      kinds = track ? {} : undefined;
      labels = withMetadata(input.labels, metadata, kinds);
    }
    if (labels !== input.labels) {
      const key = kinds ? `${JSON.stringify(labels)}${JSON.stringify(kinds)}` : JSON.stringify(labels);
      let k = setIndex.get(key);
      if (k === undefined) {
        k = labelSets.length;
        labelSets.push(labels);
        labelKinds?.push(kinds);
        setIndex.set(key, k);
      }
      at = k;
    }
    if (at >= 0 && !labelIndex) labelIndex = new Array<number>(lines.length).fill(-1);
    labelIndex?.push(at);
    ts.push(c.ts[i]!);
    lines.push(outLine);
    return lines.length < input.limit;
  });
  return {
    ts: BigInt64Array.from(ts),
    lines,
    labelSets,
    ...(labelKinds ? { labelKinds } : {}),
    labelIndex: labelIndex ? Int32Array.from(labelIndex) : undefined,
    scannedLines: hi - lo,
    scannedBytes: c.offsets[hi]! - c.offsets[lo]!,
  };
}

export interface MetricScanInput {
  source: ChunkSource;
  /** the LogQL text of the metric query (its range aggregation's log query is what is scanned) */
  query: string;
  labels: Record<string, string>;
  /** entries read: [from, to) in ns */
  from: bigint;
  to: bigint;
  /** step times (ms), ascending */
  steps: Float64Array;
  rangeMs: number;
  /** output label sets are reduced to these before counting (a sum by/without pushed down), when given */
  grouping?: { without: boolean; labels: string[] } | undefined;
  /** the most output label sets a chunk may make before the scan gives up (0: no limit) */
  maxSeries?: number | undefined;
  maxTemplateOutput?: number | undefined;
  /** pending delete requests whose selectors match the stream: the lines they delete are not counted (deletion/) */
  deletes?: DeleteInput[] | undefined;
}

export interface MetricGroup {
  /** undefined: the stream's labels (reduced by the grouping, when given) */
  labels: Record<string, string> | undefined;
  /** the timestamp and position of its first entry (output series are ordered by first appearance) */
  firstTs: bigint;
  firstPos: number;
  /** per step: entries, and their line bytes, in the window (t - range, t] */
  counts: Float64Array;
  bytes: Float64Array;
}

export interface MetricScanResult {
  groups: MetricGroup[];
  /** true when the chunk made more output label sets than maxSeries */
  tooManySeries: boolean;
  /** in a batch (metricScans): the chunk failed its checks (ChunkCorruptError's message); the others were scanned */
  corrupt?: string | undefined;
}

/** a label set reduced to a grouping (the outer aggregation's by/without) */
export function groupLabels(labels: Record<string, string>, grouping: { without: boolean; labels: string[] } | undefined): Record<string, string> {
  if (!grouping) return {};
  const out: Record<string, string> = {};
  if (grouping.without) {
    for (const [k, v] of Object.entries(labels)) if (!grouping.labels.includes(k)) out[k] = v;
  } else {
    for (const k of grouping.labels) if (labels[k] !== undefined) out[k] = labels[k]!;
  }
  return out;
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** the ms of each ns timestamp in [lo, hi), truncated toward zero exactly as Number(ts / 1_000_000n) */
function millisOf(ts: BigInt64Array, lo: number, hi: number): Float64Array {
  const out = new Float64Array(hi - lo);
  if (!littleEndian) {
    for (let i = lo; i < hi; i++) out[i - lo] = Number(ts[i]! / 1_000_000n);
    return out;
  }
  const words = new Uint32Array(ts.buffer, ts.byteOffset, ts.length * 2);
  for (let i = lo; i < hi; i++) {
    const low = words[2 * i]!;
    const high = words[2 * i + 1]!;
    if (high >= 0x80000000) {
      out[i - lo] = Number(ts[i]! / 1_000_000n);
      continue;
    }
    // high * 2^32 = high * 4294 * 1e6 + high * 967296: every part exact in a double
    out[i - lo] = high * 4294 + Math.floor((high * 967296 + low) / 1e6);
  }
  return out;
}

/**
 * Adds entries to per-step window counts: an entry at `ms` counts for step t
 * when t - range < ms <= t. `ms` must not decrease between calls on the same
 * accumulator (entries of one time-ordered run).
 */
export class WindowCounter {
  readonly counts: Float64Array;
  readonly bytes: Float64Array;
  private first = 0;
  private last = 0;
  constructor(private readonly steps: Float64Array, private readonly rangeMs: number) {
    // difference arrays: +1 at the first step an entry counts for, -1 past its last
    this.counts = new Float64Array(steps.length + 1);
    this.bytes = new Float64Array(steps.length + 1);
  }
  /** a new run of entries: pointers start over */
  restart(): void {
    this.first = 0;
    this.last = 0;
  }
  add(ms: number, size: number): void {
    const steps = this.steps;
    const n = steps.length;
    let a = this.first;
    while (a < n && !(ms <= steps[a]!)) a++;
    let b = Math.max(this.last, a);
    while (b < n && steps[b]! - this.rangeMs < ms) b++;
    this.first = a;
    this.last = b;
    if (a >= b) return;
    this.counts[a]! += 1;
    this.counts[b]! -= 1;
    this.bytes[a]! += size;
    this.bytes[b]! -= size;
  }
  /** the per-step values (prefix sums of the differences) */
  totals(): { counts: Float64Array; bytes: Float64Array } {
    const n = this.steps.length;
    const counts = new Float64Array(n);
    const bytes = new Float64Array(n);
    let c = 0;
    let b = 0;
    for (let i = 0; i < n; i++) {
      c += this.counts[i]!;
      b += this.bytes[i]!;
      counts[i] = c;
      bytes[i] = b;
    }
    return { counts, bytes };
  }
}

export function metricScan(input: MetricScanInput, ctx: TaskContext): MetricScanResult {
  const { plan } = compiled(input.query);
  const gone = deleteTestOf(input.deletes, input.labels);
  const c = columnsOf(input.source, plan, !plan.noStages || gone?.needsLine === true);
  if (!c) return { groups: [], tooManySeries: false };
  const lo = lowerBound(c.ts, input.from);
  const hi = lowerBound(c.ts, input.to, lo);
  if (lo >= hi) return { groups: [], tooManySeries: false };
  const ms = millisOf(c.ts, lo, hi);
  const groups = new Map<string, { labels: Record<string, string> | undefined; firstTs: bigint; firstPos: number; counter: WindowCounter }>();
  const groupOf = (key: string, labels: Record<string, string> | undefined, i: number) => {
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { labels, firstTs: c.ts[i]!, firstPos: i, counter: new WindowCounter(input.steps, input.rangeMs) }));
    return g;
  };
  let tooManySeries = false;
  // Without label stages, an entry's structured metadata changes its group only when the grouping
  // keeps a label the metadata gives: never for sum(...) or a `by` of stream labels, which keep the
  // fast path; per entry otherwise (its labels are the stream's and its metadata's)
  const groupBy = input.grouping && !input.grouping.without ? input.grouping.labels : undefined;
  const metadataGroups = (m: Record<string, string>) => !groupBy || groupBy.some((name) => metadataGives(m, input.labels, name));
  if (plan.noStages && !gone && (!c.metadata || groupBy?.length === 0)) {
    const g = groupOf("", input.grouping ? groupLabels(input.labels, input.grouping) : undefined, lo);
    for (let i = lo; i < hi; i++) g.counter.add(ms[i - lo]!, c.offsets[i + 1]! - c.offsets[i]!);
  } else {
    const streamKey = input.grouping ? JSON.stringify(groupLabels(input.labels, input.grouping)) : "";
    eachSurvivor(c, plan, input.labels, lo, hi, false, ctx, (i, line) => {
      if (gone?.(c.ts[i]!, line, c.metadata?.[i])) return true;
      let key = streamKey;
      let labels: Record<string, string> | undefined = input.grouping ? groupLabels(input.labels, input.grouping) : undefined;
      const metadata = c.metadata?.[i];
      if (!plan.filtersOnly || (metadata && metadataGroups(metadata))) {
        const p = plan.filtersOnly ? { labels: withMetadata(input.labels, metadata!, undefined) } : runPipeline(plan.stages, line, input.labels, input.maxTemplateOutput, metadata);
        if (!p) return true;
        if (p.labels !== input.labels) {
          labels = input.grouping ? groupLabels(p.labels, input.grouping) : p.labels;
          key = JSON.stringify(labels);
          if (!input.grouping && key === JSON.stringify(input.labels)) {
            key = "";
            labels = undefined;
          }
        }
      }
      groupOf(key, labels, i).counter.add(ms[i - lo]!, c.offsets[i + 1]! - c.offsets[i]!);
      if (input.maxSeries && groups.size > input.maxSeries) {
        tooManySeries = true;
        return false;
      }
      return true;
    }, plan.regexes.length > 0 || !plan.filtersOnly || gone?.needsLine === true);
  }
  const out: MetricGroup[] = [];
  for (const g of groups.values()) {
    const { counts, bytes } = g.counter.totals();
    out.push({ labels: g.labels, firstTs: g.firstTs, firstPos: g.firstPos, counts, bytes });
  }
  return { groups: out, tooManySeries };
}

/** an encoding worker's garbage (columns taken in, deflate buffers) given back under steady ingest (platform/memory.ts) */
const releaseEncoded = memoryPacer(32 * 1024 * 1024, 250);

export const logTasks: Record<string, TaskFn> = {
  ...deletionTasks,
  /** a cut head's columns (ChunkInput) to a format 2 chunk; the chunk's buffer is moved back */
  encodeChunk(input: ChunkInput) {
    const blob = encodeChunk2(input);
    return { result: blob, transfer: [blob.buffer as ArrayBuffer] };
  },
  /** several chunks in one task: under a stream of pushes the main thread answers a worker only every few hundred ms, so one chunk a message left the workers idle */
  encodeChunks(inputs: ChunkInput[]) {
    releaseEncoded(inputs.reduce((n, input) => n + input.lines.length, 0));
    const blobs = inputs.map((input) => encodeChunk2(input));
    return { result: blobs, transfer: blobs.map((b) => b.buffer as ArrayBuffer) };
  },
  logScan: (input: LogScanInput, ctx) => {
    const result = logScan(input, ctx);
    return { result, transfer: [result.ts.buffer as ArrayBuffer, ...(result.labelIndex ? [result.labelIndex.buffer as ArrayBuffer] : [])] };
  },
  /** several chunks' log scans in one task, in the order given; a corrupt chunk is answered as such (`corrupt`), the others scanned */
  logScans: (inputs: LogScanInput[], ctx) => {
    const results = inputs.map((input): LogScanResult => {
      if (ctx.cancelled()) return emptyScan();
      try {
        return logScan(input, ctx);
      } catch (err) {
        if (err instanceof Error && err.name === "ChunkCorruptError") return { ...emptyScan(), corrupt: err.message };
        throw err;
      }
    });
    return { result: results, transfer: results.flatMap((r) => [r.ts.buffer as ArrayBuffer, ...(r.labelIndex ? [r.labelIndex.buffer as ArrayBuffer] : [])]) };
  },
  /**
   * Several chunks' metric scans in one task (a message each way instead of one per chunk: a
   * metric query over weeks reads thousands of chunks, most of them in a fraction of a ms).
   * A corrupt chunk is answered as such; the others are scanned.
   */
  metricScans: (inputs: MetricScanInput[], ctx) => {
    const results = inputs.map((input): MetricScanResult => {
      if (ctx.cancelled()) return { groups: [], tooManySeries: false };
      try {
        return metricScan(input, ctx);
      } catch (err) {
        if (err instanceof Error && err.name === "ChunkCorruptError") return { groups: [], tooManySeries: false, corrupt: err.message };
        throw err;
      }
    });
    return { result: results, transfer: results.flatMap((r) => r.groups.flatMap((g) => [g.counts.buffer as ArrayBuffer, g.bytes.buffer as ArrayBuffer])) };
  },
  metricScan: (input: MetricScanInput, ctx) => {
    const result = metricScan(input, ctx);
    return { result, transfer: result.groups.flatMap((g) => [g.counts.buffer as ArrayBuffer, g.bytes.buffer as ArrayBuffer]) };
  },
};
