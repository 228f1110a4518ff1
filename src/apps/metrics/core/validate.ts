// The distributor's series validation (reference §7), with Mimir's messages
// and discard reasons: a series failing it is dropped whole, the rest of the
// request is still ingested, and the first error is the 400 answer.
import { isStorableText } from "../../../lib/storable-text.ts";
import type { MetricsLimits } from "./types.ts";
import type { LabelPair } from "./remote-write.ts";

export interface SeriesProblem {
  /** cortex_discarded_samples_total reason */
  reason: string;
  message: string;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export const isValidMetricName = (name: string) => METRIC_NAME.test(name);
export const isValidLabelName = (name: string) => LABEL_NAME.test(name);

const limitHint = (flag: string) => `To adjust the related per-tenant limit, configure -${flag}, or contact your service administrator.`;

/** Prometheus's text form of a label set: {__name__="up", job="a"}, cut at 200 characters as Mimir cuts it */
export function seriesText(labels: readonly LabelPair[]): string {
  const text = `{${labels.map((l) => `${l.name}=${JSON.stringify(l.value)}`).join(", ")}}`;
  return text.length > 200 ? text.slice(0, 200) : text;
}

/** a series in Prometheus's metric{labels} form, for ingester messages */
export function metricText(labels: readonly LabelPair[]): string {
  const name = labels.find((l) => l.name === "__name__")?.value ?? "";
  const rest = labels.filter((l) => l.name !== "__name__").map((l) => `${l.name}=${JSON.stringify(l.value)}`);
  return `${name}{${rest.join(", ")}}`;
}

const byName = (a: LabelPair, b: LabelPair) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Sorts the labels in place (as the distributor does before validating) and
 * checks them in Mimir's order; undefined when the series is valid.
 */
export function validateLabels(labels: LabelPair[], limits: MetricsLimits): SeriesProblem | undefined {
  labels.sort(byName);
  const name = labels.find((l) => l.name === "__name__")?.value;
  if (name === undefined || name === "") {
    return { reason: "missing_metric_name", message: "received series has no metric name (err-mimir-missing-metric-name)" };
  }
  if (!isValidMetricName(name)) {
    return { reason: "metric_name_invalid", message: `received a series with invalid metric name: '${name}' (err-mimir-metric-name-invalid)` };
  }
  const max = limits.max_label_names_per_series;
  if (max > 0 && labels.length > max) {
    return {
      reason: "max_label_names_per_series",
      message: `received a series whose number of labels exceeds the limit (actual: ${labels.length}, limit: ${max}) series: '${seriesText(labels)}' (err-mimir-max-label-names-per-series). ${limitHint("validation.max-label-names-per-series")}`,
    };
  }
  let previous = "";
  for (const l of labels) {
    if (l.name !== "__name__" && !isValidLabelName(l.name)) {
      return { reason: "label_invalid", message: `received a series with an invalid label: '${l.name}' series: '${seriesText(labels)}' (err-mimir-label-invalid)` };
    }
    if (limits.max_label_name_length > 0 && l.name.length > limits.max_label_name_length) {
      return {
        reason: "label_name_too_long",
        message: `received a series whose label name length exceeds the limit, label: '${l.name}' series: '${seriesText(labels)}' (err-mimir-label-name-too-long). ${limitHint("validation.max-length-label-name")}`,
      };
    }
    if (limits.max_label_value_length > 0 && l.value.length > limits.max_label_value_length) {
      return {
        reason: "label_value_too_long",
        message: `received a series whose label value length exceeds the limit, label: '${l.name}', value: '${l.value.slice(0, 200)}' (truncated) series: '${seriesText(labels)}' (err-mimir-label-value-too-long). ${limitHint("validation.max-length-label-value")}`,
      };
    }
    // invalid UTF-8 reads back as U+FFFD or an unpaired surrogate; NUL is valid UTF-8 but PostgreSQL's jsonb cannot hold it
    if (l.value.includes("\uFFFD") || !isStorableText(l.value)) {
      return { reason: "label_value_invalid", message: `received a series with invalid value in label '${l.name}': '${l.value}' metric: '${name}' (err-mimir-label-value-invalid)` };
    }
    if (l.name === previous) {
      return { reason: "duplicate_label_names", message: `received a series with duplicate label name, label: '${l.name}' series: '${seriesText(labels)}' (err-mimir-duplicate-label-names)` };
    }
    previous = l.name;
  }
  return undefined;
}

/** a sample later than now + creation_grace_period is refused */
export function futureSampleProblem(t: number, now: number, limits: MetricsLimits, labels: readonly LabelPair[]): SeriesProblem | undefined {
  // beyond 2^53 ms (int64 max included) nothing can be stored, whatever the grace period
  if (t <= now + limits.creation_grace_period && t <= Number.MAX_SAFE_INTEGER) return undefined;
  return {
    reason: "too_far_in_future",
    message: `received a sample whose timestamp is too far in the future, timestamp: ${t} series: '${metricText(labels)}' (err-mimir-too-far-in-future). ${limitHint("validation.create-grace-period")}`,
  };
}

/** Mimir's default -validation.max-metadata-length: the longest metric name, unit and help of a metadata entry */
export const MAX_METADATA_LENGTH = 1024;

type Metadata = { type: number; metricFamilyName: string; help: string; unit: string };

/**
 * A request's metadata as Mimir's distributor keeps it (cleanAndValidateMetadata, with
 * -validation.enforce-metadata-metric-name on and max_metadata_length 1024): an entry with no
 * metric name, or a name or unit longer than the limit, is dropped and `refused` is told why; a
 * help longer than the limit is cut to it. The same array when nothing changed.
 */
export function cleanMetadata(metadata: Metadata[], refused: (problem: SeriesProblem) => void): Metadata[] {
  let out = metadata;
  for (let i = 0; i < metadata.length; i++) {
    const m = metadata[i]!;
    const problem = metadataProblem(m);
    const kept = problem ? undefined : m.help.length > MAX_METADATA_LENGTH ? { ...m, help: cutText(m.help, MAX_METADATA_LENGTH) } : m;
    if (problem) refused(problem);
    if (kept !== m && out === metadata) out = metadata.slice(0, i);
    if (kept && out !== metadata) out.push(kept);
  }
  return out;
}

function metadataProblem(m: Metadata): SeriesProblem | undefined {
  if (m.metricFamilyName === "") return { reason: "missing_metric_name", message: "received a metric metadata with no metric name (err-mimir-metadata-missing-metric-name)" };
  if (m.metricFamilyName.length > MAX_METADATA_LENGTH) {
    return {
      reason: "metric_name_too_long",
      message: `received a metric metadata whose metric name length exceeds the limit, metric name: '${m.metricFamilyName.slice(0, 200)}' (err-mimir-metric-name-too-long). ${limitHint("validation.max-metadata-length")}`,
    };
  }
  if (m.unit.length > MAX_METADATA_LENGTH) {
    return {
      reason: "unit_too_long",
      message: `received a metric metadata whose unit name length exceeds the limit, unit: '${m.unit.slice(0, 200)}' metric name: '${m.metricFamilyName.slice(0, 200)}' (err-mimir-unit-too-long). ${limitHint("validation.max-metadata-length")}`,
    };
  }
  return undefined;
}

/** the first `max` characters of a text, not ending in half a surrogate pair */
function cutText(text: string, max: number): string {
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}
