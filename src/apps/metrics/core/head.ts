// One tenant's in-memory head (DESIGN: metrics core): the series index
// (label set -> series, postings by label pair), active-series counts per
// tenant and per metric, and each series' recent samples: an open XOR chunk
// appended to as samples arrive, closed every CHUNK_SAMPLES samples, kept
// until written to the database.
import { labelsHash, type LabelPair } from "./label-hash.ts";
import { RawIndex } from "./raw-index.ts";
import { immutableLabels } from "./labels-memo.ts";
import { matcherPredicate } from "./matchers.ts";
import type { Labels, Matcher } from "./types.ts";
import { APPENDER_BYTES, decodeXorChunkBits, LITTLE_ENDIAN, XorAppender } from "./xor-chunk.ts";

export const CHUNK_SAMPLES = 120;

/** the two 32-bit halves of Prometheus's stale marker, 0x7ff0000000000002 */
export const STALE_HI = 0x7ff00000;
export const STALE_LO = 2;
/** index of the high half of a float64 in a Uint32Array view */
export const WORD_HI = LITTLE_ENDIAN ? 1 : 0;

export interface ClosedChunk {
  minT: number;
  maxT: number;
  samples: number;
  data: Uint8Array;
  /** its samples decoded, when it had them as the open chunk (kept until written to the database) */
  mirror?: Mirror;
}

/**
 * A chunk's samples decoded, kept beside it for queries: queries of recent
 * data read them without decoding the chunk again. Made for an open chunk the
 * first time a query reads it, then appended to with the chunk, and kept by
 * the chunk when closed until it is in the database; at most MIRROR_BUDGET
 * bytes of them in the process.
 */
export interface Mirror {
  t: Float64Array;
  v: Float64Array;
  /** v's bits: two words per sample, in the platform's order (stale markers are only bits) */
  bits: Uint32Array;
  n: number;
  /** how many of its samples are stale markers (a query looks for them only when there are some) */
  stale: number;
  /** the encoded chunk's bytes (kept up to date with the open chunk's: a query counts them without reading the encoder) */
  bytes: number;
}

/** the bytes of decoded samples kept for queries in the whole process (8 MiB per 4,369 series' open chunks) */
export const MIRROR_BUDGET = 32 * 1024 * 1024;
const MIRROR_BYTES = CHUNK_SAMPLES * 16;
let mirrorBytes = 0;

/** the bytes of mirrors in use now (for tests) */
export const mirrorBytesInUse = () => mirrorBytes;

/**
 * the open chunk's mirror, made now (decoding the chunk once) when there is
 * none and the budget allows; undefined otherwise
 */
export function openMirror(s: HeadSeries): Mirror | undefined {
  if (s.mirror) return s.mirror;
  const open = s.open;
  if (!open || open.count === 0) return undefined;
  const m = newMirror();
  if (m) {
    m.n = open.decodeInto(m.t, m.bits, 0);
    m.stale = countStale(m.bits, m.n);
    m.bytes = open.byteLength;
  }
  return (s.mirror = m);
}

/** an empty mirror, counted against the budget; undefined when the budget is spent */
function newMirror(): Mirror | undefined {
  if (mirrorBytes + MIRROR_BYTES > MIRROR_BUDGET) return undefined;
  mirrorBytes += MIRROR_BYTES;
  // typed arrays over buffers made here: reading .buffer of one made by length is slow on JavaScriptCore
  const vBuf = new ArrayBuffer(CHUNK_SAMPLES * 8);
  return { t: new Float64Array(new ArrayBuffer(CHUNK_SAMPLES * 8)), v: new Float64Array(vBuf), bits: new Uint32Array(vBuf), n: 0, stale: 0, bytes: 0 };
}

/** whether sample k of value bits (two words a sample) is Prometheus's stale marker */
export const isStaleAt = (bits: Uint32Array, k: number): boolean => bits[2 * k + WORD_HI] === STALE_HI && bits[2 * k + 1 - WORD_HI] === STALE_LO;

/** the stale markers among the first n samples of value bits */
function countStale(bits: Uint32Array, n: number): number {
  let stale = 0;
  for (let k = 0; k < n; k++) if (isStaleAt(bits, k)) stale++;
  return stale;
}

/** a closed chunk's mirror, made now (decoding it once) when there is none and the budget allows */
export function closedMirror(c: ClosedChunk): Mirror | undefined {
  if (c.mirror) return c.mirror;
  if (c.samples > CHUNK_SAMPLES) return undefined;
  const m = newMirror();
  if (m) {
    m.n = decodeXorChunkBits(c.data, m.t, m.bits, 0);
    m.stale = countStale(m.bits, m.n);
    m.bytes = c.data.length;
  }
  return (c.mirror = m);
}

/** gives a mirror's bytes back to the budget */
export function releaseMirror(m: Mirror | undefined): void {
  if (m) mirrorBytes -= MIRROR_BYTES;
}

export interface HeadSeries {
  readonly id: number;
  readonly labels: Labels;
  readonly metric: string;
  /** the hash of its labels (labelsHash): its place in the head's index */
  readonly hash: number;
  /** the open chunk, encoded as samples arrive (none until the first, and after an idle series' cut) */
  open: XorAppender | undefined;
  /** its oldest sample */
  openMinT: number;
  /** wall-clock time the open chunk got its first sample */
  openedAt: number;
  /** encoded chunks not yet in the database */
  closed: ClosedChunk[];
  /**
   * chunks already in the database kept in memory too while recent
   * (KEEP_FLUSHED_MS): queries of recent data need no database read
   */
  flushed: ClosedChunk[];
  /** newest sample (-Infinity before the first) */
  lastT: number;
  lastV: number;
  /** whether the newest sample is a stale marker */
  lastStale: boolean;
  /** whether lastV and lastStale are known (not for a series read from the database, until its next sample) */
  lastKnown: boolean;
  /** oldest sample known, in the head or the database (Infinity before the first) */
  firstT: number;
  /** newest sample already in the database (-Infinity when none) */
  persistedMaxT: number;
  /** whether the series row is in the database */
  persisted: boolean;
  /** wall-clock time of the last append */
  lastSeen: number;
  active: boolean;
  /** the hash and check of the raw bytes a push last named it by (TenantHead.findRaw; 0: none) */
  rawKey: number;
  rawCheck: number;
  /** the limits its labels were last validated against: the same object means still valid */
  validatedWith?: object;
  /** the open chunk's samples decoded, when a query asked for them (openMirror) */
  mirror?: Mirror;
  /** its place in label order among the head's series (valid while the head's order is) */
  rank: number;
  /** names and values in name order, [n0, v0, n1, v1, ...], made on first need (to compare label sets) */
  flat?: string[];
}

/**
 * the chunk list of a series that has none: one shared, frozen array (an
 * empty array per list and series would cost a million of them); lists are
 * made when a first chunk comes (addChunk)
 */
export const NO_CHUNKS: ClosedChunk[] = Object.freeze([]) as unknown as ClosedChunk[];

/** appends a chunk to one of a series' lists, making the list if it is the shared empty one */
export function addChunk(s: HeadSeries, list: "closed" | "flushed", ...chunks: ClosedChunk[]): void {
  if (chunks.length === 0) return;
  if (s[list] === NO_CHUNKS) s[list] = chunks;
  else s[list].push(...chunks);
}

export type { LabelPair };

export type AppendResult = "ok" | "duplicate" | "out_of_order" | "new_value";

/** a label set's pairs in name order */
export function sortedPairs(labels: Labels): LabelPair[] {
  return Object.keys(labels)
    .sort()
    .map((name) => ({ name, value: labels[name]! }));
}

/** whether a series has exactly these labels */
function sameLabels(s: HeadSeries, sorted: ReadonlyArray<LabelPair>): boolean {
  const labels = s.labels;
  let n = 0;
  for (const name in labels) {
    n++;
    if (n > sorted.length) return false;
  }
  if (n !== sorted.length) return false;
  for (const l of sorted) if (labels[l.name] !== l.value) return false;
  return true;
}

/** the values of one label name kept once for every series (those of names with few values) */
const INTERN_VALUES = 4096;

/**
 * A tenant's series by id, in an array indexed by id (what a Map would hold
 * in a million entries). values() goes in id order, which is the order
 * series were made in (ids only grow), and sees series added while it runs.
 */
export class SeriesById {
  /** by id; undefined where there is none */
  readonly slots: Array<HeadSeries | undefined> = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(id: number): HeadSeries | undefined {
    return this.slots[id];
  }

  has(id: number): boolean {
    return this.slots[id] !== undefined;
  }

  set(id: number, s: HeadSeries): void {
    const slots = this.slots;
    if (id >= slots.length) {
      // never read past the end (a slow path): new ids come in order, each one appended
      while (slots.length < id) slots.push(undefined);
      slots.push(s);
      this.count++;
      return;
    }
    if (slots[id] === undefined) this.count++;
    slots[id] = s;
  }

  delete(id: number): boolean {
    if (this.slots[id] === undefined) return false;
    this.slots[id] = undefined;
    this.count--;
    return true;
  }

  *values(): IterableIterator<HeadSeries> {
    const slots = this.slots;
    for (let i = 0; i < slots.length; i++) {
      const s = slots[i];
      if (s !== undefined) yield s;
    }
  }
}

export class TenantHead {
  readonly tenant: string;
  /** series by labelsHash: one, or the few whose labels share a hash */
  private readonly byHash = new Map<number, HeadSeries | HeadSeries[]>();
  /** label names, and the values of names with few of them, one string each (strings decoded from pushes are new each time) */
  private readonly names = new Map<string, string>();
  private readonly values = new Map<string, Map<string, string>>();
  /** series by id (ids are small and dense: an array, not a map of a million entries) */
  readonly byId = new SeriesById();
  /** series by the hash of the raw bytes of their labels in a push (label-hash.ts rawLabelsHash) */
  private readonly byRaw = new RawIndex();
  /** label name -> value -> ids ascending */
  /** label name -> value -> the ids of the series that have it: one id alone as a number (most values of ids, hosts), else ascending */
  private postings = new Map<string, Map<string, Posting>>();
  private allIds: number[] = [];
  private nextId = 1;
  activeCount = 0;
  readonly activeByMetric = new Map<string, number>();
  /** newest sample of the tenant: the head accepts nothing older than an hour before it */
  maxT = -Infinity;
  /**
   * oldest sample the tenant holds (Infinity when none): lowered as samples
   * come, walked again (recomputeMinT) after retention or a deletion raised it
   */
  minT = Infinity;
  /** metric metadata from remote write (type, help, unit), by metric family */
  readonly metadata = new Map<string, { type: string; help: string; unit: string }>();
  private lastSweep = 0;
  /** every series in label order, ranked (undefined after series came or went, until needed again) */
  private ordered: HeadSeries[] | undefined;

  constructor(tenant: string) {
    this.tenant = tenant;
  }

  /** the id the next new series gets (ids are never given twice, even after retention removed a series) */
  get nextSeriesId(): number {
    return this.nextId;
  }

  set nextSeriesId(id: number) {
    if (id > this.nextId) this.nextId = id;
  }

  get seriesCount(): number {
    return this.byId.size;
  }

  /** the series with exactly these labels (pairs in name order), if the head has it (`hash`: their labelsHash, when known) */
  find(sorted: ReadonlyArray<LabelPair>, hash = labelsHash(sorted)): HeadSeries | undefined {
    const found = this.byHash.get(hash);
    if (found === undefined) return undefined;
    if (!Array.isArray(found)) return sameLabels(found, sorted) ? found : undefined;
    return found.find((s) => sameLabels(s, sorted));
  }

  /** the series a push names by its labels' raw bytes (their hash and check), if known */
  findRaw(rawKey: number, check: number): HeadSeries | undefined {
    if (rawKey === 0) return undefined;
    const id = this.byRaw.get(rawKey);
    if (id < 0) return undefined;
    const s = this.byId.slots[id];
    return s !== undefined && s.rawKey === rawKey && s.rawCheck === check ? s : undefined;
  }

  /** remembers the raw bytes a push named a series by (one encoding per series is kept) */
  setRaw(rawKey: number, check: number, s: HeadSeries): void {
    if (rawKey === 0) return;
    // the key it was named by before is forgotten (a sender that changed its encoding; a release that hashes otherwise)
    if (s.rawKey !== 0 && s.rawKey !== rawKey && this.byRaw.get(s.rawKey) === s.id) this.byRaw.delete(s.rawKey);
    this.byRaw.set(rawKey, s.id);
    s.rawKey = rawKey;
    s.rawCheck = check;
  }

  /** adds a series given its labels as an object (sorted first) */
  addSeriesOf(labels: Labels, id?: number): HeadSeries {
    return this.addSeries(sortedPairs(labels), id);
  }

  /**
   * adds a series (from the database, a checkpoint, a replay or a push) with
   * the labels given as pairs in name order; ids are given when known
   */
  addSeries(sorted: ReadonlyArray<LabelPair>, id?: number, hash = labelsHash(sorted)): HeadSeries {
    const sid = id ?? this.nextId;
    if (sid >= this.nextId) this.nextId = sid + 1;
    const labels: Labels = {};
    for (const l of sorted) labels[this.intern(l.name)] = this.internValue(l.name, l.value);
    // never changed after: queries keep what they derive from it (labels-memo.ts)
    immutableLabels(labels);
    const s: HeadSeries = {
      id: sid, labels, metric: labels.__name__ ?? "", hash,
      open: undefined, openMinT: 0, openedAt: 0, closed: NO_CHUNKS, flushed: NO_CHUNKS,
      lastT: -Infinity, lastV: 0, lastStale: false, lastKnown: true, firstT: Infinity, persistedMaxT: -Infinity, persisted: id !== undefined,
      lastSeen: 0, active: false, rank: -1, rawKey: 0, rawCheck: 0,
      // every field from the start: one shape for all series keeps property reads fast
      validatedWith: undefined, mirror: undefined, flat: undefined,
    };
    this.ordered = undefined;
    const other = this.byHash.get(hash);
    if (other === undefined) this.byHash.set(hash, s);
    else if (Array.isArray(other)) other.push(s);
    else this.byHash.set(hash, [other, s]);
    this.byId.set(sid, s);
    // ids only grow, so appending keeps every postings list sorted
    if (this.allIds.length && this.allIds[this.allIds.length - 1]! > sid) {
      insertSorted(this.allIds, sid);
      for (const l of sorted) this.addPosting(l.name, l.value, sid, true);
    } else {
      this.allIds.push(sid);
      for (const l of sorted) this.addPosting(l.name, l.value, sid, false);
    }
    return s;
  }

  private intern(name: string): string {
    const got = this.names.get(name);
    if (got !== undefined) return got;
    this.names.set(name, name);
    return name;
  }

  private internValue(name: string, value: string): string {
    let values = this.values.get(name);
    if (!values) this.values.set(name, (values = new Map()));
    const got = values.get(value);
    if (got !== undefined) return got;
    if (values.size < INTERN_VALUES) values.set(value, value);
    return value;
  }

  private addPosting(name: string, value: string, id: number, sorted: boolean): void {
    let values = this.postings.get(name);
    if (!values) this.postings.set(name, (values = new Map()));
    const ids = values.get(value);
    if (ids === undefined) values.set(value, id);
    else if (typeof ids === "number") values.set(value, ids < id ? [ids, id] : [id, ids]);
    else if (sorted) insertSorted(ids, id);
    else ids.push(id);
  }

  /** marks a series active (counting it) */
  activate(s: HeadSeries, now: number): void {
    s.lastSeen = now;
    if (s.active) return;
    s.active = true;
    this.activeCount++;
    this.activeByMetric.set(s.metric, (this.activeByMetric.get(s.metric) ?? 0) + 1);
  }

  /** series idle longer than the timeout stop being active; at most once a second unless forced */
  sweepIdle(now: number, idleTimeout: number, force = false): void {
    if (!force && now - this.lastSweep < 1000) return;
    this.lastSweep = now;
    const cutoff = now - idleTimeout;
    for (const s of this.byId.values()) {
      if (s.active && s.lastSeen < cutoff) {
        s.active = false;
        this.activeCount--;
        const n = (this.activeByMetric.get(s.metric) ?? 1) - 1;
        if (n > 0) this.activeByMetric.set(s.metric, n);
        else this.activeByMetric.delete(s.metric);
      }
    }
  }

  /**
   * appends one sample; Prometheus's rules for order and duplicates. A stale
   * marker is passed as `stale` (its NaN payload does not survive a number
   * on every runtime) and stored with its exact bits.
   */
  append(s: HeadSeries, t: number, v: number, now: number, stale = false): AppendResult {
    if (t <= s.lastT) {
      if (t < s.lastT) return "out_of_order";
      const same = stale || s.lastStale ? stale === s.lastStale : sameBits(v, s.lastV);
      return same ? "duplicate" : "new_value";
    }
    s.open ??= new XorAppender(APPENDER_BYTES);
    if (s.open.count === 0) {
      s.openedAt = now;
      s.openMinT = t;
    }
    if (stale) s.open.appendBits(t, STALE_HI, STALE_LO);
    else s.open.append(t, v);
    const m = s.mirror;
    if (m) {
      const n = m.n++;
      m.t[n] = t;
      if (stale) {
        m.bits[2 * n + WORD_HI] = STALE_HI;
        m.bits[2 * n + 1 - WORD_HI] = STALE_LO;
        m.stale++;
      } else m.v[n] = v;
      m.bytes = s.open.byteLength;
    }
    s.lastT = t;
    s.lastV = v;
    s.lastStale = stale;
    s.lastKnown = true;
    if (t < s.firstT) {
      s.firstT = t;
      if (t < this.minT) this.minT = t;
    }
    if (t > this.maxT) this.maxT = t;
    if (s.open.count >= CHUNK_SAMPLES) cutChunk(s);
    return "ok";
  }

  /** the series matching every matcher, ascending by id */
  select(matchers: readonly Matcher[]): HeadSeries[] {
    const { ids, rest } = this.selectIds(matchers);
    const out: HeadSeries[] = [];
    const slots = this.byId.slots;
    for (const id of ids) {
      const s = slots[id];
      if (s && matchesRest(s, rest)) out.push(s);
    }
    return out;
  }

  /**
   * the ids the postings give for the matchers they can answer (ascending;
   * shared lists: never changed by the caller), and the matchers left for
   * each of those series' labels (matchesRest)
   */
  selectIds(matchers: readonly Matcher[]): { ids: readonly number[]; rest: CompiledMatcher[] } {
    let candidates: readonly number[] | undefined;
    const rest: CompiledMatcher[] = [];
    for (const matcher of matchers) {
      const m = { ...matcher, test: matcherPredicate(matcher) };
      let ids: readonly number[] | undefined;
      if (m.type === "=" && m.value !== "") ids = listOf(this.postings.get(m.name)?.get(m.value));
      else if (m.type === "=~" && !m.test("")) {
        const values = this.postings.get(m.name);
        const lists: number[][] = [];
        let total = 0;
        if (values) {
          for (const [value, list] of values) {
            total += typeof list === "number" ? 1 : list.length;
            if (m.test(value)) lists.push(listOf(list));
          }
        }
        // every value matches and every series has the label (a series has one value a name): all series
        ids = values && lists.length === values.size && total === this.allIds.length ? this.allIds : union(lists, this.nextId);
      }
      if (ids) candidates = candidates ? intersect(candidates, ids) : ids;
      else rest.push(m);
      if (candidates && candidates.length === 0) return { ids: [], rest: [] };
    }
    return { ids: candidates ?? this.allIds, rest };
  }

  /**
   * some of the head's series in label order (Prometheus's order of label
   * sets), sorted in place. The order of all series is kept between queries
   * and remade only after series came or went, when the ones asked for are a
   * good part of all (else they are compared by their labels directly).
   */
  sortByLabels(series: HeadSeries[]): HeadSeries[] {
    if (series.length < 2) return series;
    const all = this.byId.size;
    if (!this.ordered && series.length * 8 >= all) {
      this.ordered = [...this.byId.values()].sort(compareSeries);
      this.ordered.forEach((s, i) => (s.rank = i));
    }
    if (!this.ordered) return series.sort(compareSeries);
    if (series.length * 16 >= all) {
      // a bucket per rank: linear in the head's size
      const slots: Array<HeadSeries | undefined> = new Array(all);
      for (const s of series) slots[s.rank] = s;
      let n = 0;
      for (let r = 0; r < all; r++) {
        const s = slots[r];
        if (s) series[n++] = s;
      }
      return series;
    }
    return series.sort((a, b) => a.rank - b.rank);
  }

  labelNames(): string[] {
    return [...this.postings.keys()];
  }

  labelValues(name: string): string[] {
    return [...(this.postings.get(name)?.keys() ?? [])];
  }

  /** the oldest sample of every series, walked (a pass over the series, no chunk read) */
  recomputeMinT(): void {
    let min = Infinity;
    const slots = this.byId.slots;
    for (let i = 0; i < slots.length; i++) {
      const s = slots[i];
      if (s !== undefined && s.firstT < min) min = s.firstT;
    }
    this.minT = min;
  }

  /**
   * takes series out of the index at once: by id, labels and raw key (a push
   * naming them again makes a new series), and out of the active counts.
   * Their ids stay in the postings until prunePostings (lookups skip ids
   * with no series).
   */
  detachSeries(ids: Iterable<number>): void {
    for (const id of ids) {
      const s = this.byId.get(id);
      if (!s) continue;
      if (s.active) {
        s.active = false;
        this.activeCount--;
        const n = (this.activeByMetric.get(s.metric) ?? 1) - 1;
        if (n > 0) this.activeByMetric.set(s.metric, n);
        else this.activeByMetric.delete(s.metric);
      }
      this.byId.delete(id);
      if (s.rawKey !== 0 && this.byRaw.get(s.rawKey) === id) this.byRaw.delete(s.rawKey);
      const same = this.byHash.get(s.hash);
      if (Array.isArray(same)) {
        const rest = same.filter((x) => x !== s);
        if (rest.length === 1) this.byHash.set(s.hash, rest[0]!);
        else this.byHash.set(s.hash, rest);
      } else if (same === s) this.byHash.delete(s.hash);
      releaseMirror(s.mirror);
      s.mirror = undefined;
      for (const c of s.closed) releaseMirror(c.mirror);
      for (const c of s.flushed) releaseMirror(c.mirror);
      s.flushed = NO_CHUNKS;
    }
    this.ordered = undefined;
  }

  /**
   * drops detached series' ids from the postings and from the list of all
   * ids. With `pause`, in pieces (a million series' postings are not walked
   * in one turn of the event loop): lists are replaced, never changed in
   * place, and ids pushes add meanwhile are kept.
   */
  async prunePostings(ids: ReadonlySet<number>, pause?: () => Promise<void>): Promise<void> {
    if (ids.size === 0) return;
    // pushes append new ids to this list meanwhile: the loop reads its length each time, so they are kept
    const before = this.allIds;
    const kept: number[] = [];
    for (let i = 0; i < before.length; i++) {
      if (!ids.has(before[i]!)) kept.push(before[i]!);
      if (pause && (i & 16383) === 16383) await pause();
    }
    this.allIds = kept;
    let work = 0;
    for (const [name, values] of this.postings) {
      for (const [value, list] of values) {
        if (typeof list === "number") {
          if (ids.has(list)) values.delete(value);
          work++;
        } else {
          const left = list.filter((id) => !ids.has(id));
          if (left.length > 1) values.set(value, left);
          else if (left.length === 1) values.set(value, left[0]!);
          else values.delete(value);
          work += list.length;
        }
        if (pause && work >= 16384) {
          work = 0;
          await pause();
        }
      }
      if (values.size === 0) this.postings.delete(name);
    }
  }
}

/** the series of one label pair: one id, or several ascending */
type Posting = number | number[];

/** a posting as a list (one id becomes a list of one) */
const listOf = (p: Posting | undefined): number[] => (p === undefined ? [] : typeof p === "number" ? [p] : p);

/** a matcher with its test of a label's value */
export type CompiledMatcher = Matcher & { test: (value: string) => boolean };

/** whether a series' labels pass the matchers the postings could not answer */
export function matchesRest(s: HeadSeries, rest: readonly CompiledMatcher[]): boolean {
  for (const m of rest) if (!m.test(s.labels[m.name] ?? "")) return false;
  return true;
}

/** a series' labels as [n0, v0, n1, v1, ...] in name order, made once */
function flatLabels(s: HeadSeries): string[] {
  if (s.flat) return s.flat;
  const flat: string[] = [];
  for (const n of Object.keys(s.labels).sort()) flat.push(n, s.labels[n]!);
  return (s.flat = flat);
}

/** Prometheus's labels.Compare: name by name, then value, the shorter set first on a tie */
function compareSeries(a: HeadSeries, b: HeadSeries): number {
  const x = flatLabels(a);
  const y = flatLabels(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return x.length - y.length;
}

/**
 * how long chunks written to the database stay in memory as well, behind the
 * tenant's newest sample (dropped at the next write after): the windows of rate() and the lookback of recent
 * queries are read from memory
 */
export const KEEP_FLUSHED_MS = 10 * 60_000;

/** the oldest time from which on all of a series' samples are in memory (Infinity: none are) */
export function inMemoryFrom(s: HeadSeries): number {
  const c = s.flushed[0] ?? s.closed[0];
  if (c) return c.minT;
  return openSamples(s) ? s.openMinT : Infinity;
}


/** forgets in-memory copies of written chunks whose newest sample is before `cutoff` */
export function dropFlushedBefore(s: HeadSeries, cutoff: number): void {
  let n = 0;
  while (n < s.flushed.length && s.flushed[n]!.maxT < cutoff) releaseMirror(s.flushed[n++]!.mirror);
  if (n === s.flushed.length) s.flushed = NO_CHUNKS;
  else if (n) s.flushed.splice(0, n);
}

/** samples in the open chunk */
export const openSamples = (s: HeadSeries) => s.open?.count ?? 0;

/** closes the open chunk; an inactive series also gives up the appender's buffer */
export function cutChunk(s: HeadSeries): void {
  const n = openSamples(s);
  if (n === 0) return;
  const closed: ClosedChunk = { minT: s.openMinT, maxT: s.lastT, samples: n, data: s.open!.bytes(), mirror: s.mirror };
  s.mirror = undefined;
  addChunk(s, "closed", closed);
  if (s.active) s.open!.reset();
  else s.open = undefined;
}

const bits = new Float64Array(2);
const words = new Uint32Array(bits.buffer);
/** equal as stored bits (NaN equals NaN of the same payload, as Prometheus compares) */
function sameBits(a: number, b: number): boolean {
  if (a === b) return !(a === 0 && 1 / a !== 1 / b);
  bits[0] = a;
  bits[1] = b;
  return words[0] === words[2] && words[1] === words[3];
}

function intersect(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      out.push(x);
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return out;
}

/** the ids of sorted lists, each once, ascending; ids are below `universe` */
function union(lists: number[][], universe: number): number[] {
  if (lists.length === 0) return [];
  if (lists.length === 1) return lists[0]!;
  let total = 0;
  for (const l of lists) total += l.length;
  if (total > 4096) {
    // many ids (a regex over a million series' names): a mark per id, in linear time
    const mark = new Uint8Array(universe);
    for (const l of lists) for (const id of l) mark[id] = 1;
    const out: number[] = [];
    for (let id = 0; id < universe; id++) if (mark[id]) out.push(id);
    return out;
  }
  const all = new Set<number>();
  for (const l of lists) for (const id of l) all.add(id);
  return [...all].sort((a, b) => a - b);
}

function insertSorted(list: number[], id: number): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  if (list[lo] !== id) list.splice(lo, 0, id);
}
