// The write path of one push (reference §7), in Mimir's order: validate each
// series (a bad one is dropped whole), take the request's cost from the
// tenant's token bucket, then append to the head under the series limits
// and the ordering rules. What was accepted is in the write-ahead log before
// the answer; the first error, if any, is the answer (400 after a partial
// ingest, 429 for the rate limit, which refuses the whole request).
import type { TokenBuckets } from "../../../lib/token-bucket.ts";
import { type AppendResult, type HeadSeries, type TenantHead } from "./head.ts";
import { labelsHash } from "./label-hash.ts";
import { encodeWriteRequest, type LabelPair, type Sample, type WriteRequest, type WriteSeries } from "./remote-write.ts";
import type { PackedWrite } from "./push-decode.ts";
import type { MetricsStore } from "./store.ts";
import type { MetricsLimitsSource } from "./types.ts";
import { cleanMetadata, futureSampleProblem, seriesText, validateLabels } from "./validate.ts";

export interface IngestCounters {
  received(tenant: string, samples: number): void;
  discarded(tenant: string, reason: string, samples: number): void;
  ingested(tenant: string, samples: number): void;
  /** metadata entries refused by validation (cortex_discarded_metadata_total) */
  discardedMetadata?(tenant: string, reason: string, entries: number): void;
}

export interface IngestDeps {
  store: MetricsStore;
  limits: MetricsLimitsSource;
  buckets: TokenBuckets;
  counters: IngestCounters;
  now: () => number;
  /** a series with no sample for this long is not active (ms) */
  idleTimeout: number;
}

export interface IngestResult {
  status: 200 | 400 | 429;
  message?: string;
  /** samples stored (a 200, or a 400 that refused only some) */
  appended?: number;
  /** samples refused (a 400) */
  rejected?: number;
  /**
   * the first refusal was the ingester's (a series limit, a sample out of
   * order or too old), which Mimir reports as a soft error: an OTLP push is
   * then answered with a partial success even when nothing was stored
   */
  soft?: boolean;
}

/** a time as Go's RFC 3339 with nanoseconds writes it (trailing zeros trimmed), for ingester messages */
/** Go's RFC 3339 (nano) UTC time, also for years Date cannot hold (int64 min, for one) */
function goTime(ms: number): string {
  const date = new Date(ms);
  if (!Number.isNaN(date.getTime())) return date.toISOString().replace(/\.?0*Z$/, "Z");
  // civil date from days (H. Hinnant's days_from_civil inverse): exact in doubles for |days| < 2^53
  const days = Math.floor(ms / 86_400_000);
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const rest = ms - days * 86_400_000;
  const two = (n: number) => String(n).padStart(2, "0");
  const clock = `${two(Math.floor(rest / 3_600_000))}:${two(Math.floor(rest / 60_000) % 60)}:${two(Math.floor(rest / 1000) % 60)}`;
  return `${y}-${two(m)}-${two(d)}T${clock}Z`;
}

/** the oldest time a sample may have: what JavaScript holds exactly (int64 min is out of bounds, as too old) */
const MIN_SAMPLE_T = -Number.MAX_SAFE_INTEGER;

const HOUR = 3_600_000;

/**
 * Ingests a decoded push. `raw` is the request's own body (snappy protobuf):
 * when everything was accepted it is what the write-ahead log keeps.
 * `refused` is told the index (in request.timeseries) of each series some
 * sample of which was refused (an OTLP push counts their data points).
 */
export function ingest(deps: IngestDeps, tenant: string, request: WriteRequest, raw?: Uint8Array, refused?: (series: number) => void): IngestResult {
  const limits = deps.limits.of(tenant);
  const now = deps.now();
  let firstError: string | undefined;
  let firstSoft = false;
  let rejected = 0;
  let refusedAny = false;
  const fail = (reason: string, samples: number, message: string, soft = false, series = -1) => {
    refusedAny = true;
    rejected += samples;
    if (samples) deps.counters.discarded(tenant, reason, samples);
    if (series >= 0) refused?.(series);
    if (firstError === undefined) {
      firstError = message;
      firstSoft = soft;
    }
  };

  let total = 0;
  for (const ts of request.timeseries) total += ts.samples.length;
  deps.counters.received(tenant, total);

  // distributor: validation (skipped for a series known by its raw labels and validated against these limits)
  const head = deps.store.head(tenant);
  const valid: Valid[] = [];
  let validSamples = 0;
  for (let i = 0; i < request.timeseries.length; i++) {
    const ts = request.timeseries[i]!;
    if (ts.samples.length === 0) continue;
    const known = head.findRaw(ts.rawKey, ts.rawCheck);
    // a known series' labels are made only when a message or a re-encoded record needs them
    const labels = ts.labelsSkipped && known ? undefined : ts.labels;
    const v: Valid = { ts, labels, known, index: i };
    const problem = (known?.validatedWith === limits ? undefined : validateLabels(pairsOf(v), limits)) ?? firstFuture(ts, v, now, limits);
    if (problem) {
      fail(problem.reason, ts.samples.length, problem.message, false, i);
      continue;
    }
    valid.push(v);
    validSamples += ts.samples.length;
  }
  // then the metadata, as Mimir's distributor: an entry without a name, or with a name or unit over
  // max_metadata_length, is dropped and its message is the answer's if none came before; a help over
  // it is cut
  const validMetadata = cleanMetadata(request.metadata, (problem) => {
    deps.counters.discardedMetadata?.(tenant, problem.reason, 1);
    firstError ??= problem.message;
  });
  const metadata = validMetadata.length;
  const cost = validSamples + metadata;
  if (cost > 0 && !deps.buckets.allow(tenant, cost, limits.ingestion_rate, limits.ingestion_burst_size)) {
    if (validSamples) deps.counters.discarded(tenant, "rate_limited", validSamples);
    return {
      status: 429,
      message: `ingestion rate limit (${limits.ingestion_rate}) exceeded while adding ${validSamples} samples and ${metadata} metadata`,
    };
  }

  for (const m of validMetadata) head.metadata.set(m.metricFamilyName, { type: METRIC_TYPES[m.type] ?? "unknown", help: m.help, unit: m.unit });

  // ingester: series limits and appends
  deps.store.walSegment();
  /** the series some of whose samples were appended, and those samples */
  const acceptedSeries: Valid[] = [];
  const acceptedSamples: Sample[][] = [];
  let appended = 0;
  for (const v of valid) {
    const { ts, known } = v;
    let s = known;
    if (!s) {
      const labels = ts.labels;
      const hash = labelsHash(labels);
      s = head.find(labels, hash);
      if (!s || !s.active) {
        const refused = seriesLimitProblem(head, s, labels, limits, now, deps.idleTimeout);
        if (refused) {
          fail(refused.reason, ts.samples.length, refused.message, true, v.index);
          continue;
        }
      }
      // the head accepts nothing older than an hour before the tenant's newest sample
      if (!s && ts.samples.some((x) => x.timestampMs >= head.maxT - HOUR && x.timestampMs >= MIN_SAMPLE_T)) {
        s = head.addSeries(labels, undefined, hash);
      }
      if (s) head.setRaw(ts.rawKey, ts.rawCheck, s);
    } else if (!s.active) {
      const refused = seriesLimitProblem(head, s, NO_PAIRS, limits, now, deps.idleTimeout);
      if (refused) {
        fail(refused.reason, ts.samples.length, refused.message, true, v.index);
        continue;
      }
    }
    if (s) s.validatedWith = limits;
    // the samples appended: all of them (the usual case, nothing copied) unless one was not
    const samples = ts.samples;
    let kept: Sample[] | undefined;
    let ok = 0;
    for (let k = 0; k < samples.length; k++) {
      const sample = samples[k]!;
      const t = sample.timestampMs;
      const result: AppendResult | "too_old" = !s || t < head.maxT - HOUR || t < MIN_SAMPLE_T ? "too_old" : head.append(s, t, sample.value, now, sample.stale);
      if (result === "ok") {
        ok++;
        kept?.push(sample);
        continue;
      }
      kept ??= samples.slice(0, k);
      if (result === "duplicate") continue;
      const [reason, text, id] = SAMPLE_ERRORS[result];
      fail(reason, 1, `failed pushing to ingester outpost: user=${tenant}: ${text} (err-mimir-${id}). The affected sample has timestamp ${goTime(t)} and is from series ${seriesText(pairsOf(v))}`, true, v.index);
    }
    if (s && ok) {
      head.activate(s, now);
      appended += ok;
      acceptedSeries.push(v);
      acceptedSamples.push(kept ?? samples);
    }
  }
  if (appended) {
    const whole = !refusedAny && raw && acceptedSeries.length === request.timeseries.length;
    const record = whole ? raw : encodeWriteRequest({ timeseries: acceptedSeries.map((v, i) => ({ labels: pairsOf(v), samples: acceptedSamples[i]! })) });
    deps.store.logWrite(tenant, record);
    deps.counters.ingested(tenant, appended);
  }
  return firstError === undefined ? { status: 200, appended } : { status: 400, message: firstError, appended, rejected, soft: firstSoft };
}

/**
 * The common push, stored straight from its packed form (push-decode.ts):
 * every series known by its raw labels, validated against these limits,
 * active, with samples newer than its newest, in order, within the grace
 * period and the head's window. Nothing in it can then be refused but by the
 * rate limit, so it is stored exactly as ingest() would store it, without
 * an object per series or sample. Undefined when the push is not all that
 * (then ingest() takes it, unpacked) or the rate limit refuses it (ingest()
 * words the refusal).
 */
export function ingestPacked(deps: IngestDeps, tenant: string, p: PackedWrite, raw: Uint8Array): IngestResult | undefined {
  const head = deps.store.peek(tenant);
  const n = p.keys.length;
  if (!head || n === 0) return undefined;
  const limits = deps.limits.of(tenant);
  const now = deps.now();
  const latest = Math.min(now + limits.creation_grace_period, Number.MAX_SAFE_INTEGER);
  // the head's window as it will be after the push's newest sample (samples are checked against it as they are appended)
  let newest = head.maxT;
  for (let k = 0; k < p.ts.length; k++) if (p.ts[k]! > newest) newest = p.ts[k]!;
  const oldest = Math.max(newest - HOUR, MIN_SAMPLE_T);
  const found = new Array<HeadSeries>(n);
  // each series' newest sample as the push goes (a series named twice must go on in order): kept in
  // lastT while checking, and put back after
  const lastBefore = new Float64Array(n);
  let checked = 0;
  let ok = true;
  let from = 0;
  for (let i = 0; i < n && ok; i++) {
    const to = p.sampleEnd[i]!;
    const s = head.findRaw(p.keys[i]!, p.checks[i]!);
    if (s === undefined || to === from || s.validatedWith !== limits || !s.active) break;
    let last = s.lastT;
    for (let k = from; k < to && ok; k++) {
      const t = p.ts[k]!;
      if (t <= last || t > latest || t < oldest) ok = false;
      last = t;
    }
    found[i] = s;
    lastBefore[i] = s.lastT;
    s.lastT = last;
    checked = i + 1;
    from = to;
  }
  for (let i = checked - 1; i >= 0; i--) found[i]!.lastT = lastBefore[i]!;
  if (!ok || checked < n) return undefined;
  // metadata that validation would refuse: ingest() words the refusal
  const metadata = cleanMetadata(p.metadata, () => (ok = false));
  if (!ok) return undefined;
  const total = p.ts.length;
  const cost = total + metadata.length;
  if (!deps.buckets.allow(tenant, cost, limits.ingestion_rate, limits.ingestion_burst_size)) return undefined;
  deps.counters.received(tenant, total);
  for (const m of metadata) head.metadata.set(m.metricFamilyName, { type: METRIC_TYPES[m.type] ?? "unknown", help: m.help, unit: m.unit });
  deps.store.walSegment();
  from = 0;
  for (let i = 0; i < n; i++) {
    const s = found[i]!;
    const to = p.sampleEnd[i]!;
    for (let k = from; k < to; k++) head.append(s, p.ts[k]!, p.values[k]!, now, p.stale[k] === 1);
    head.activate(s, now);
    from = to;
  }
  deps.store.logWrite(tenant, raw);
  deps.counters.ingested(tenant, total);
  return { status: 200, appended: total };
}

interface Valid {
  ts: WriteSeries;
  /** sorted label pairs; undefined for a known series until asked for (pairsOf) */
  labels: LabelPair[] | undefined;
  /** the series, when the push named it by raw labels the head knows */
  known?: HeadSeries;
  /** its index in the request's timeseries */
  index: number;
}

const NO_PAIRS: LabelPair[] = [];

/** a series' labels as sorted pairs: a known series' are made from its labels (built from sorted pairs) */
function pairsOf(v: Valid): LabelPair[] {
  return (v.labels ??= Object.entries(v.known!.labels).map(([name, value]) => ({ name, value })));
}

function firstFuture(ts: WriteSeries, v: Valid, now: number, limits: Parameters<typeof futureSampleProblem>[2]) {
  for (const s of ts.samples) {
    // the labels only for the message
    if (s.timestampMs > now + limits.creation_grace_period || s.timestampMs > Number.MAX_SAFE_INTEGER) return futureSampleProblem(s.timestampMs, now, limits, pairsOf(v));
  }
  return undefined;
}

const SAMPLE_ERRORS = {
  out_of_order: ["sample-out-of-order", "the sample has been rejected because another sample with a more recent timestamp has already been ingested and out-of-order samples are not allowed", "sample-out-of-order"],
  new_value: ["new-value-for-timestamp", "the sample has been rejected because another sample with the same timestamp, but a different value, has already been ingested", "sample-duplicate-timestamp"],
  too_old: ["sample-too-old", "the sample has been rejected because its timestamp is too old", "sample-timestamp-too-old"],
} as const;

const METRIC_TYPES = ["unknown", "counter", "gauge", "histogram", "gaugehistogram", "summary", "info", "stateset"];

/** the spec's series limit messages; a series that becomes active again needs a free slot too */
function seriesLimitProblem(head: TenantHead, existing: HeadSeries | undefined, labels: LabelPair[], limits: { max_global_series_per_user: number; max_global_series_per_metric: number }, now: number, idle: number) {
  const perUser = limits.max_global_series_per_user;
  const perMetric = limits.max_global_series_per_metric;
  if (perUser <= 0 && perMetric <= 0) return undefined;
  const metric = existing?.metric ?? labels.find((l) => l.name === "__name__")?.value ?? "";
  const over = () =>
    perUser > 0 && head.activeCount >= perUser ? "user" : perMetric > 0 && (head.activeByMetric.get(metric) ?? 0) >= perMetric ? "metric" : undefined;
  let which = over();
  if (which) {
    head.sweepIdle(now, idle);
    which = over();
  }
  if (which === "user") {
    return { reason: "per_user_series_limit", message: `per-user series limit of ${perUser} exceeded, please contact administrator to raise it (per-ingester local limit: ${perUser})` };
  }
  if (which === "metric") {
    return { reason: "per_metric_series_limit", message: `per-metric series limit of ${perMetric} exceeded, please contact administrator to raise it (per-ingester local limit: ${perMetric})` };
  }
  return undefined;
}
