// OpenTelemetry metric and attribute names as Prometheus names, following
// github.com/prometheus/otlptranslator (MetricNamer, LabelNamer, the unit
// maps of metric_namer.go/unit_namer.go; the 2025 line that Prometheus 3.x
// and Mimir vendor) under the UnderscoreEscapingWithSuffixes strategy:
// characters outside [a-zA-Z0-9:] split the name into words joined by `_`,
// the UCUM unit becomes a suffix (`s` → `_seconds`, `By/s` →
// `_bytes_per_second`, `{packets}` → nothing), monotonic sums end in
// `_total`, gauges of unit `1` in `_ratio`. Without suffixes
// (UnderscoreEscapingWithoutSuffixes) only the characters are escaped.
// Attribute names are escaped as LabelNamer does with Mimir's defaults
// (underscore sanitization on, repeated underscores kept).
//
// Names are bounded before anything is made of them (docs/opentelemetry.md):
// an attribute name longer than MAX_LABEL_NAME_LENGTH (Mimir's default
// max_label_name_length) or a metric whose Prometheus name would be longer than
// MAX_METRIC_NAME_LENGTH (Mimir's default max_label_value_length, which
// bounds __name__) is refused as a name the translator cannot make: its data
// points are dropped with the message, the rest of the request is stored.
import { normalizeLabel } from "../../../lib/otlp/values.ts";

/** otlptranslator.MetricType: what decides the `_total` and `_ratio` suffixes */
export type OtlpNameType = "gauge" | "counter" | "non_monotonic_counter" | "histogram" | "exponential_histogram" | "summary";

/** otlptranslator's unitMap: UCUM units and their Prometheus words (`1` is dimensionless: no suffix) */
const UNITS: Record<string, string> = {
  d: "days", h: "hours", min: "minutes", s: "seconds", ms: "milliseconds", us: "microseconds", ns: "nanoseconds",
  By: "bytes", KiBy: "kibibytes", MiBy: "mebibytes", GiBy: "gibibytes", TiBy: "tibibytes",
  KBy: "kilobytes", MBy: "megabytes", GBy: "gigabytes", TBy: "terabytes",
  m: "meters", V: "volts", A: "amperes", J: "joules", W: "watts", g: "grams",
  Cel: "celsius", Hz: "hertz", "1": "", "%": "percent",
};

/** otlptranslator's perUnitMap: the unit after `/` (singular) */
const PER_UNITS: Record<string, string> = { s: "second", m: "minute", h: "hour", d: "day", w: "week", mo: "month", y: "year" };

/** a name the translator refused (the metric or data point is dropped; its message joins the partial-success answer) */
export class OtlpNameError extends Error {}

/** Go's %q of a name, for the translator's messages */
const quoted = (s: string) => JSON.stringify(s);

/** buildUnitSuffixes: the main and per-unit words of a UCUM unit (annotations in braces give none) */
function unitSuffixes(unit: string): [string, string] {
  const slash = unit.indexOf("/");
  const mainText = (slash < 0 ? unit : unit.slice(0, slash)).trim();
  const main = mainText !== "" && !/[{}]/.test(mainText) ? (UNITS[mainText] ?? mainText) : "";
  let per = "";
  if (slash >= 0 && slash < unit.length - 1) {
    const perText = unit.slice(slash + 1).trim();
    if (perText !== "" && !/[{}]/.test(perText)) per = PER_UNITS[perText] ?? perText;
    if (per !== "") per = `per_${per}`;
  }
  return [main, per];
}

/** cleanUpUnit: characters outside [a-zA-Z0-9:] as `_`, runs of `_` as one, no leading `_` */
const cleanUpUnit = (unit: string) => unit.replace(/[^a-zA-Z0-9:]/g, "_").replace(/__+/g, "_").replace(/^_/, "");

/** normalizeName: the name's words, its unit words, `total`/`ratio` last */
function withSuffixes(name: string, unit: string, type: OtlpNameType): string {
  let tokens = name.split(/[^a-zA-Z0-9:]+/).filter((t) => t !== "");
  const [mainRaw, perRaw] = unitSuffixes(unit);
  let main = cleanUpUnit(mainRaw);
  let per = cleanUpUnit(perRaw);
  if (tokens.includes(main)) main = "";
  if (per === "per_") per = "";
  else {
    per = per.replace(/_$/, "");
    if (tokens.includes(per)) per = "";
  }
  if (per !== "") main = main.replace(/_$/, "");
  if (main !== "") tokens.push(main);
  if (per !== "") tokens.push(per);
  if (type === "counter") tokens = [...tokens.filter((t) => t !== "total"), "total"];
  if (unit === "1" && type === "gauge") tokens = [...tokens.filter((t) => t !== "ratio"), "ratio"];
  const out = tokens.join("_");
  return /^[0-9]/.test(out) ? `_${out}` : out;
}

/** the simple case: characters outside [a-zA-Z0-9:_] split the name, joined by `_` */
function withoutSuffixes(name: string): string {
  const out = name.split(/[^a-zA-Z0-9:_]+/).filter((t) => t !== "").join("_");
  return /^[0-9]/.test(out) ? `_${out}` : out;
}

/** the longest attribute name made into a label name (Mimir's default -validation.max-length-label-name) */
export const MAX_LABEL_NAME_LENGTH = 1024;
/** the longest metric name made (Mimir's default -validation.max-length-label-value, which bounds __name__) */
export const MAX_METRIC_NAME_LENGTH = 2048;
/** names longer than this are made each time, not remembered */
const REMEMBERED_LENGTH = 256;

/**
 * names made lately: the same few metrics and attribute keys come in every
 * push; bounded in count (a sender of ever-new names empties it now and then
 * rather than growing it without end) and in length (a long name is made
 * again when it comes again: the memo holds at most 4,096 short names)
 */
function remembered(): ((key: string, make: () => string) => string) & { readonly size: number } {
  const made = new Map<string, string>();
  const remember = (key: string, make: () => string) => {
    let out = made.get(key);
    if (out === undefined) {
      out = make();
      if (key.length > REMEMBERED_LENGTH) return out;
      if (made.size >= 4096) made.clear();
      made.set(key, out);
    }
    return out;
  };
  return Object.defineProperty(remember, "size", { get: () => made.size }) as typeof remember & { readonly size: number };
}

const metricNames = remembered();
const labelNames = remembered();

/** how many metric and label names are remembered (for tests) */
export const rememberedNames = (): number => metricNames.size + labelNames.size;

/** a name in a message: its first 100 characters */
const cut = (s: string) => quoted(s.length > 100 ? `${s.slice(0, 100)}…` : s);

/**
 * MetricNamer.Build (escaping): the Prometheus name of a metric; an empty or all-underscore result is
 * refused as the translator refuses it, a name over MAX_METRIC_NAME_LENGTH characters as too long
 */
export function metricName(name: string, unit: string, type: OtlpNameType, suffixes: boolean): string {
  // a name or unit that long cannot make a name under the bound: refused before anything is made of it
  if (name.length > MAX_METRIC_NAME_LENGTH * 2 || unit.length > MAX_METRIC_NAME_LENGTH * 2) throw tooLongMetric(name);
  return metricNames(`${suffixes ? "s" : "n"}${type}\u0000${unit}\u0000${name}`, () => {
    const out = suffixes ? withSuffixes(name, unit, type) : withoutSuffixes(name);
    if (out === "") throw new OtlpNameError(`normalization for metric ${quoted(name)} resulted in empty name`);
    if (out !== name && /^_+$/.test(out)) throw new OtlpNameError(`normalization for metric ${quoted(name)} resulted in invalid name ${quoted(out)}`);
    if (out.length > MAX_METRIC_NAME_LENGTH) throw tooLongMetric(name);
    return out;
  });
}

const tooLongMetric = (name: string) => new OtlpNameError(`the name made of metric ${cut(name)} is longer than ${MAX_METRIC_NAME_LENGTH} characters`);

/**
 * LabelNamer.Build (escaping): the label name of an attribute key, refused when empty or when it is
 * (or becomes) only underscores, as the current LabelNamer refuses it, and when longer than
 * MAX_LABEL_NAME_LENGTH characters
 */
export function labelName(key: string): string {
  if (key === "") throw new OtlpNameError("label name is empty");
  if (key.length > MAX_LABEL_NAME_LENGTH) throw new OtlpNameError(`label name ${cut(key)} is longer than ${MAX_LABEL_NAME_LENGTH} characters`);
  return labelNames(key, () => {
    const out = normalizeLabel(key);
    if (/^_+$/.test(out)) throw new OtlpNameError(`normalization for label name ${quoted(key)} resulted in invalid name ${quoted(out)}`);
    return out;
  });
}
