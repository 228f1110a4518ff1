// An OTLP ExportMetricsServiceRequest (decoded protobuf or OTLP/JSON: the same
// field names) as Prometheus series, following Prometheus's OTLP translator
// (storage/remote/otlptranslator/prometheusremotewrite: FromMetrics,
// createAttributes, addResourceTargetInfo; the Prometheus 3.x line Mimir
// vendors) with Mimir's settings (docs/opentelemetry.md):
// - gauges and sums as one series per data point; a sum must be cumulative
//   (a delta sum or histogram is refused: "invalid temporality and type
//   combination", Mimir's default -distributor.otel-native-delta-ingestion=false);
// - explicit-bucket histograms as `_bucket{le}` (cumulative, `+Inf` = count),
//   `_sum` (when set) and `_count`; summaries as `{quantile}`, `_sum`, `_count`;
// - exponential histograms are refused: this store keeps no native histograms;
// - a data point flagged NoRecordedValue becomes Prometheus's stale marker, and
//   so does a value whose bits are the stale marker's (as Prometheus's head
//   reads them: the same on the event loop, on the worker and in the log;
//   under Bun the protobuf decoder has already made such a value a plain NaN);
// - attributes become labels (names escaped, colliding names' values joined
//   with `;`); service.name (with service.namespace) becomes `job`,
//   service.instance.id `instance`; the other resource attributes go to a
//   `target_info` series, a sample every 2.5 minutes over the resource's data
//   points' time span; configured resource attributes are promoted to labels,
//   scope metadata to `otel_scope_*` labels when enabled;
// - labels with empty values are left out (as Mimir's distributor drops them).
// Exemplars are not kept (as remote write's). A metric or data point the
// translation refuses is counted and its message kept (the partial-success
// answer); a field of the wrong JSON type, a time outside 0..2^64-1 ns or an
// asInt outside int64 is a TypeError naming the field (a 400).
// Every series is charged for what it holds (its labels' bytes: a histogram
// point's buckets each copy the point's labels) before it is made, against
// the decoded-size budget; a metric's metadata is kept only when it made a series.
import Long from "long";
import { ITEM_COST } from "../../../lib/decoded-budget.ts";
import { int64Value, nanos } from "../../../lib/otlp/proto.ts";
import { formatFloat, list, num, own, str, valueText } from "../../../lib/otlp/values.ts";
import { labelName, metricName, OtlpNameError, type OtlpNameType } from "./otlp-names.ts";
import type { LabelPair, Sample, WriteRequest, WriteSeries } from "./remote-write.ts";

type Obj = Record<string, unknown>;

/** how names and labels are made (metrics.otlp.*: Mimir's -distributor.otel-* settings) */
export interface OtlpSettings {
  /** metric suffixes for units, `_total`, `_ratio` (UnderscoreEscapingWithSuffixes); off: UnderscoreEscapingWithoutSuffixes */
  suffixes: boolean;
  /** resource attributes that become labels of every series of the resource */
  promoteResourceAttributes: readonly string[];
  /** otel_scope_name, otel_scope_version, otel_scope_schema_url and otel_scope_<attribute> labels */
  promoteScopeMetadata: boolean;
  /** keep service.name, service.namespace, service.instance.id in target_info besides job and instance */
  keepIdentifyingResourceAttributes: boolean;
}

export interface OtlpTranslation extends WriteRequest {
  /** data points in the request */
  dataPoints: number;
  /** data points the translation refused (a delta sum, an exponential histogram, a name it cannot make) */
  dropped: number;
  /** why, the translator's messages joined with "; " ("" when nothing was refused) */
  errors: string;
  /**
   * per series (as timeseries), the data point it was made of: its index among the request's data
   * points (dataPoints), -1 for target_info (no data point); a histogram or summary point makes several
   */
  seriesPoints: number[];
}

/** the translation made more than the decoded-size budget allows (answered 413) */
export class OtlpTooLarge extends Error {
  constructor(readonly charged: number) {
    super("translated request over the size limit");
  }
}

const TARGET_INFO = "target_info";
/** half of Prometheus's default lookback delta: target_info is found at any time of the span */
const TARGET_INFO_INTERVAL = 150_000;
/** target_info samples older than this before the resource's newest are not made (the head refuses them anyway) */
const TARGET_INFO_SPAN = 3_600_000;
/** bytes charged per target_info sample */
const SAMPLE_COST = 32;
/** bytes charged per label of a series on top of its name and value (the pair, its place in the list, its encoding) */
const LABEL_COST = 16;
const IDENTIFYING = ["service.namespace", "service.name", "service.instance.id"];
/** AggregationTemporality, and DataPointFlags' FLAG_NO_RECORDED_VALUE */
const CUMULATIVE = 2;
const NO_RECORDED_VALUE = 1;
/** the translator's messages are cut here, as Mimir's maxErrMsgLen */
const MAX_ERROR_TEXT = 1024;

/** a TypeError's message given the path of where it happened (a RangeError's too: an integer outside int64; other errors unchanged) */
function at(err: unknown, path: string): unknown {
  if (err instanceof TypeError) return new TypeError(`${path}${err.message}`);
  return err instanceof RangeError ? new TypeError(`${path}: ${err.message}`) : err;
}

/** a message field that must be an object when present */
function message(o: unknown, k: string): Obj | undefined {
  if (!own(o, k)) return undefined;
  const v = (o as Obj)[k];
  if (v === null || v === undefined) return undefined;
  if (typeof v !== "object" || Array.isArray(v)) throw new TypeError(`.${k} must be an object`);
  return v as Obj;
}

/** an item of a repeated message field (the caller's path names it) */
function item(items: unknown[], i: number): Obj {
  const v = items[i];
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new TypeError(" must be an object");
  return v as Obj;
}

/** a number of a repeated numeric field (a Long from protobuf, a number or numeric text from JSON) */
function numberAt(values: unknown[], i: number, field: string): number {
  const v = values[i];
  if (typeof v === "number") return v;
  if (v instanceof Long) return v.toNumber();
  try {
    return num(values, String(i), "");
  } catch {
    throw new TypeError(`.${field}[${i}] must be a number`);
  }
}

/**
 * a time in Unix nanoseconds (fixed64) as milliseconds, exactly: a Long's halves (protobuf), or
 * JSON's decimal text or number read by lib/otlp's nanos(); outside 0..2^64-1 ns, negative or not
 * an integer, refused naming the field (at most 2^64 ns is ~1.8e13 ms: every time is a safe integer)
 */
function millisOf(o: Obj, k: string): number {
  if (!own(o, k)) return 0;
  const v = o[k];
  if (typeof v === "object" && v !== null && !(v instanceof Long)) throw new TypeError(`.${k} must be an unsigned 64-bit integer`);
  if (v instanceof Long) {
    // 2^32 = 4294 * 10^6 + 967296: every product below stays exact in a double
    const hi = v.high >>> 0;
    const lo = v.low >>> 0;
    return hi * 4294 + Math.floor((hi * 967_296 + lo) / 1_000_000);
  }
  try {
    return Number(nanos(v) / 1_000_000n);
  } catch {
    throw new TypeError(`.${k} must be an unsigned 64-bit integer`);
  }
}

/** AggregationTemporality as a number (JSON may name it) */
function temporalityOf(o: Obj): number {
  if (!own(o, "aggregationTemporality")) return 0;
  const v = o.aggregationTemporality;
  if (v === "AGGREGATION_TEMPORALITY_CUMULATIVE") return 2;
  if (v === "AGGREGATION_TEMPORALITY_DELTA") return 1;
  return typeof v === "string" && /^AGGREGATION_TEMPORALITY_/.test(v) ? 0 : num(o, "aggregationTemporality", "");
}

/** an attribute list as [key, value-as-text] pairs, in key order (stable: colliding names join in a set order) */
function attributePairs(attrs: unknown[], skip?: readonly string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  let i = 0;
  try {
    for (; i < attrs.length; i++) {
      const kv = attrs[i];
      const key = str(kv, "key", "");
      if (skip?.includes(key)) continue;
      pairs.push([key, valueText(own(kv, "value") ? (kv as Obj).value : undefined, ".value")]);
    }
  } catch (err) {
    throw at(err, `.attributes[${i}]`);
  }
  for (let k = 1; k < pairs.length; k++) {
    if (pairs[k - 1]![0] > pairs[k]![0]) {
      pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      break;
    }
  }
  return pairs;
}

/** the first value of an attribute key (pcommon.Map.Get) */
function attribute(pairs: Array<[string, string]>, key: string): string | undefined {
  for (const [k, v] of pairs) if (k === key) return v;
  return undefined;
}

/** a data point's labels, and what each series made of them is charged for them */
interface BaseLabels {
  labels: LabelPair[];
  bytes: number;
}

/** what every series of a resource carries besides its data point's attributes */
interface ResourceLabels {
  pairs: Array<[string, string]>;
  promoted: LabelPair[];
  /** job and instance */
  identity: LabelPair[];
}

/** a label list under construction: set (override) and add (keep the first) by name */
class LabelSet {
  readonly pairs: LabelPair[] = [];
  private index: Map<string, number> | undefined;
  find(name: string): number {
    if (this.index) return this.index.get(name) ?? -1;
    for (let i = 0; i < this.pairs.length; i++) if (this.pairs[i]!.name === name) return i;
    return -1;
  }
  put(name: string, value: string, how: "join" | "keep" | "set"): void {
    const i = this.find(name);
    if (i < 0) {
      this.pairs.push({ name, value });
      if (this.index) this.index.set(name, this.pairs.length - 1);
      else if (this.pairs.length > 8) this.index = new Map(this.pairs.map((p, k) => [p.name, k]));
    } else if (how === "join") this.pairs[i] = { name, value: `${this.pairs[i]!.value};${value}` };
    else if (how === "set") this.pairs[i] = { name, value };
  }
}

export function translateMetrics(request: Obj, settings: OtlpSettings, budget: { charged: number; limit: number }): OtlpTranslation {
  const out: OtlpTranslation = { timeseries: [], metadata: [], dataPoints: 0, dropped: 0, errors: "", seriesPoints: [] };
  const errors: string[] = [];
  let errorText = 0;
  const refuse = (text: string, points: number) => {
    out.dropped += points;
    if (errorText <= MAX_ERROR_TEXT) {
      errors.push(text);
      errorText += text.length + 2;
    }
  };
  const charge = (bytes: number) => {
    budget.charged += bytes;
    if (budget.charged > budget.limit) throw new OtlpTooLarge(budget.charged);
  };
  const promote = new Set(settings.promoteResourceAttributes);

  /**
   * createAttributes: a data point's labels (or target_info's), empty values left out, with what
   * each series made of them is charged for them (their names and values: every series copies them
   * when encoded, in the write-ahead log's record and on the way back from the worker)
   */
  const labelsOf = (attrs: Array<[string, string]>, resource: ResourceLabels, scope: LabelPair[]): BaseLabels => {
    const set = new LabelSet();
    for (const [key, value] of attrs) set.put(labelName(key), value, "join");
    for (const p of resource.promoted) set.put(p.name, p.value, "keep");
    for (const p of scope) set.put(p.name, p.value, "set");
    for (const p of resource.identity) set.put(p.name, p.value, "set");
    charge(64 * set.pairs.length);
    const labels = set.pairs.some((p) => p.value === "") ? set.pairs.filter((p) => p.value !== "") : set.pairs;
    let bytes = 0;
    for (const p of labels) bytes += p.name.length + p.value.length + LABEL_COST;
    return { labels, bytes };
  };

  /**
   * one series: the base labels with `__name__` (and `le` or `quantile`) set, one sample; charged
   * for its labels before they are copied. Stale when the point is flagged, or its value has the
   * stale marker's bits (as Prometheus's head takes them).
   */
  const series = (base: BaseLabels, point: number, name: string, t: number, value: number, stale: boolean, extra?: string, extraValue?: string) => {
    charge(ITEM_COST + base.bytes + name.length + LABEL_COST + (extra === undefined ? 0 : extra.length + extraValue!.length + LABEL_COST));
    const labels: LabelPair[] = [];
    for (const p of base.labels) if (p.name !== "__name__" && p.name !== extra) labels.push(p);
    if (extra !== undefined) labels.push({ name: extra, value: extraValue! });
    labels.push({ name: "__name__", value: name });
    const sample: Sample = stale || isStaleNaN(value) ? { value: Number.NaN, timestampMs: t, stale: true } : { value, timestampMs: t };
    const s: WriteSeries = { labels, rawKey: 0, rawCheck: 0, labelsSkipped: false, samples: [sample], exemplars: 0, histograms: 0 };
    out.timeseries.push(s);
    out.seriesPoints.push(point);
    return s;
  };

  const resources = list(request, "resourceMetrics", "");
  for (let i = 0; i < resources.length; i++) {
    try {
      translateResource(item(resources, i));
    } catch (err) {
      throw at(err, `resourceMetrics[${i}]`);
    }
  }

  function resourceLabels(pairs: Array<[string, string]>): ResourceLabels {
    const promoted = new LabelSet();
    for (const [key, value] of pairs) {
      if (!promote.has(key)) continue;
      try {
        promoted.put(labelName(key), value, "keep");
      } catch (err) {
        if (!(err instanceof OtlpNameError)) throw err;
        refuse(err.message, 0);
      }
    }
    promoted.pairs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const identity: LabelPair[] = [];
    const service = attribute(pairs, "service.name");
    if (service !== undefined) {
      const namespace = attribute(pairs, "service.namespace");
      identity.push({ name: "job", value: namespace !== undefined ? `${namespace}/${service}` : service });
    }
    const instance = attribute(pairs, "service.instance.id");
    if (instance !== undefined) identity.push({ name: "instance", value: instance });
    return { pairs, promoted: promoted.pairs, identity };
  }

  function translateResource(rm: Obj): void {
    const resourceAttrs = list(message(rm, "resource"), "attributes", ".resource");
    const pairs = (() => {
      try {
        return attributePairs(resourceAttrs);
      } catch (err) {
        throw at(err, ".resource");
      }
    })();
    const resource = resourceLabels(pairs);
    const span = { min: Number.POSITIVE_INFINITY, max: Number.NEGATIVE_INFINITY };
    const scopes = list(rm, "scopeMetrics", "");
    for (let j = 0; j < scopes.length; j++) {
      try {
        translateScope(item(scopes, j), resource, span);
      } catch (err) {
        throw at(err, `.scopeMetrics[${j}]`);
      }
    }
    if (span.min <= span.max) targetInfo(resource, span.min, span.max);
  }

  function scopeLabels(sm: Obj): LabelPair[] {
    if (!settings.promoteScopeMetadata) return [];
    const scope = message(sm, "scope");
    const name = str(scope, "name", ".scope");
    if (name === "") return [];
    const labels: LabelPair[] = [
      { name: "otel_scope_name", value: name },
      { name: "otel_scope_version", value: str(scope, "version", ".scope") },
      { name: "otel_scope_schema_url", value: str(sm, "schemaUrl", "") },
    ];
    try {
      for (const [key, value] of attributePairs(list(scope, "attributes", ""))) labels.push({ name: labelName(`otel_scope_${key}`), value });
    } catch (err) {
      throw at(err, ".scope");
    }
    return labels;
  }

  function translateScope(sm: Obj, resource: ResourceLabels, span: { min: number; max: number }): void {
    let scope: LabelPair[];
    try {
      scope = scopeLabels(sm);
    } catch (err) {
      if (!(err instanceof OtlpNameError)) throw err;
      refuse(err.message, 0);
      scope = [];
    }
    const metrics = list(sm, "metrics", "");
    for (let k = 0; k < metrics.length; k++) {
      try {
        translateMetric(item(metrics, k), resource, scope, span);
      } catch (err) {
        throw at(err, `.metrics[${k}]`);
      }
    }
  }

  function translateMetric(metric: Obj, resource: ResourceLabels, scope: LabelPair[], span: { min: number; max: number }): void {
    const otelName = str(metric, "name", "");
    const unit = str(metric, "unit", "");
    const kind = metricKind(metric);
    if (!kind) return refuse(`could not get aggregation temporality for ${otelName} as it has unsupported metric type Empty`, 0);
    const [field, body, nameType] = kind;
    const points = list(body, "dataPoints", `.${field}`);
    // the index of the metric's first data point among the request's
    const first = out.dataPoints;
    out.dataPoints += points.length;
    // the resource's time span (target_info) counts every data point, refused ones too, as the translator's
    const times = new Array<number>(points.length);
    for (let x = 0; x < points.length; x++) {
      try {
        const t = millisOf(item(points, x), "timeUnixNano");
        times[x] = t;
        if (t < span.min) span.min = t;
        if (t > span.max) span.max = t;
      } catch (err) {
        throw at(err, `.${field}.dataPoints[${x}]`);
      }
    }
    if (field !== "gauge" && field !== "summary" && temporalityOf(body) !== CUMULATIVE) {
      return refuse(`invalid temporality and type combination for metric ${JSON.stringify(otelName)}`, points.length);
    }
    let name: string;
    try {
      name = metricName(otelName, unit, nameType, settings.suffixes);
    } catch (err) {
      if (!(err instanceof OtlpNameError)) throw err;
      return refuse(err.message, points.length);
    }
    if (points.length === 0) return refuse(`empty data points. ${otelName} is dropped`, 0);
    if (field === "exponentialHistogram") {
      return refuse(`exponential histograms are not supported (this store keeps no native histograms): the ${points.length} data points of metric ${JSON.stringify(otelName)} were dropped`, points.length);
    }
    const made = out.timeseries.length;
    for (let x = 0; x < points.length; x++) {
      const dp = points[x] as Obj;
      const point = first + x;
      try {
        const base = labelsOf(attributePairs(list(dp, "attributes", "")), resource, scope);
        const stale = (num(dp, "flags", "") & NO_RECORDED_VALUE) !== 0;
        if (field === "histogram") histogram(dp, base, point, name, times[x]!, stale);
        else if (field === "summary") summary(dp, base, point, name, times[x]!, stale);
        else series(base, point, name, times[x]!, numberValue(dp), stale);
      } catch (err) {
        if (!(err instanceof OtlpNameError)) throw at(err, `.${field}.dataPoints[${x}]`);
        refuse(err.message, 1);
      }
    }
    // metadata only for a metric that made a series (one whose every point was refused has none)
    if (out.timeseries.length > made) out.metadata.push({ type: PROM_TYPES[nameType], metricFamilyName: name, help: str(metric, "description", ""), unit });
  }

  function histogram(dp: Obj, base: BaseLabels, point: number, name: string, t: number, stale: boolean): void {
    if (own(dp, "sum") && dp.sum !== null && dp.sum !== undefined) series(base, point, `${name}_sum`, t, num(dp, "sum", ""), stale);
    const count = num(dp, "count", "");
    series(base, point, `${name}_count`, t, count, stale);
    const counts = list(dp, "bucketCounts", "");
    const bounds = list(dp, "explicitBounds", "");
    let cumulative = 0;
    for (let i = 0; i < bounds.length && i < counts.length; i++) {
      cumulative += numberAt(counts, i, "bucketCounts");
      series(base, point, `${name}_bucket`, t, cumulative, stale, "le", formatFloat(numberAt(bounds, i, "explicitBounds")));
    }
    series(base, point, `${name}_bucket`, t, count, stale, "le", "+Inf");
  }

  function summary(dp: Obj, base: BaseLabels, point: number, name: string, t: number, stale: boolean): void {
    series(base, point, `${name}_sum`, t, num(dp, "sum", ""), stale);
    series(base, point, `${name}_count`, t, num(dp, "count", ""), stale);
    const quantiles = list(dp, "quantileValues", "");
    for (let i = 0; i < quantiles.length; i++) {
      try {
        const q = item(quantiles, i);
        series(base, point, name, t, num(q, "value", ""), stale, "quantile", formatFloat(num(q, "quantile", "")));
      } catch (err) {
        throw at(err, `.quantileValues[${i}]`);
      }
    }
  }

  /** addResourceTargetInfo: the resource's other attributes, one sample every interval over its data points' span */
  function targetInfo(resource: ResourceLabels, earliest: number, latest: number): void {
    let nonIdentifying = resource.pairs.length;
    for (const key of IDENTIFYING) if (attribute(resource.pairs, key) !== undefined) nonIdentifying--;
    if (nonIdentifying === 0) return;
    const attrs = settings.keepIdentifyingResourceAttributes ? resource.pairs : resource.pairs.filter(([k]) => !IDENTIFYING.includes(k));
    // times are below 2^64 ns (~1.8e13 ms), so this holds; beyond it a step would not move the time
    if (latest > Number.MAX_SAFE_INTEGER || earliest < -Number.MAX_SAFE_INTEGER) return;
    let base: BaseLabels;
    try {
      base = labelsOf(attrs, { pairs: resource.pairs, promoted: [], identity: resource.identity }, []);
    } catch (err) {
      if (!(err instanceof OtlpNameError)) throw err;
      return refuse(err.message, 0);
    }
    if (!base.labels.some((p) => p.name === "job" || p.name === "instance")) return;
    // a sample every interval from the first time (at most an hour before the newest) while before the newest, then the newest
    const from = Math.max(earliest, latest - TARGET_INFO_SPAN);
    const steps = Math.min(TARGET_INFO_SPAN / TARGET_INFO_INTERVAL, Math.ceil((latest - from) / TARGET_INFO_INTERVAL));
    charge(SAMPLE_COST * (steps + 1));
    const s = series(base, -1, TARGET_INFO, latest, 1, false);
    const samples = new Array<Sample>(steps + 1);
    for (let i = 0; i < steps; i++) samples[i] = { value: 1, timestampMs: from + i * TARGET_INFO_INTERVAL };
    samples[steps] = { value: 1, timestampMs: latest };
    s.samples = samples;
  }

  out.errors = errors.join("; ");
  if (out.errors.length > MAX_ERROR_TEXT) out.errors = out.errors.slice(0, MAX_ERROR_TEXT);
  return out;
}

/** the metadata's type (prompb MetricType: COUNTER 1, GAUGE 2, HISTOGRAM 3, SUMMARY 5), as otelMetricTypeToPromMetricType */
const PROM_TYPES: Record<OtlpNameType, number> = { gauge: 2, counter: 1, non_monotonic_counter: 2, histogram: 3, exponential_histogram: 3, summary: 5 };

/** the metric's data field, its message and the name type; undefined when none is set */
function metricKind(metric: Obj): [string, Obj, OtlpNameType] | undefined {
  for (const field of ["gauge", "sum", "histogram", "exponentialHistogram", "summary"] as const) {
    const body = message(metric, field);
    if (!body) continue;
    if (field === "sum") return [field, body, body.isMonotonic === true || body.isMonotonic === "true" ? "counter" : "non_monotonic_counter"];
    return [field, body, field === "exponentialHistogram" ? "exponential_histogram" : field];
  }
  return undefined;
}

/** a NumberDataPoint's value: asDouble or asInt (none set: 0, as pmetric reads it); an asInt outside int64 is refused */
function numberValue(dp: Obj): number {
  if (own(dp, "asDouble") && dp.asDouble !== null && dp.asDouble !== undefined) return num(dp, "asDouble", "");
  if (own(dp, "asInt") && dp.asInt !== null && dp.asInt !== undefined) {
    const v = dp.asInt;
    if (v instanceof Long) return v.toNumber();
    try {
      return Number(int64Value(v));
    } catch {
      throw new TypeError(".asInt must be a 64-bit integer");
    }
  }
  return 0;
}

/** Prometheus's stale marker, 0x7ff0000000000002, as its two 32-bit halves */
const STALE_HI = 0x7ff00000;
const STALE_LO = 2;
/** the bits of a number, to read a NaN's payload */
const bits = new Float64Array(1);
const bitWords = new Uint32Array(bits.buffer);
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/** true when the value is Prometheus's stale marker: a NaN of bits 0x7ff0000000000002 (value.IsStaleNaN) */
export function isStaleNaN(v: number): boolean {
  if (v === v) return false;
  bits[0] = v;
  return bitWords[HI] === STALE_HI && bitWords[1 - HI] === STALE_LO;
}
