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

/**
 * names made lately: the same few metrics and attribute keys come in every
 * push; bounded, so a sender of ever-new names empties it now and then
 * rather than growing it without end
 */
function remembered(): (key: string, make: () => string) => string {
  const made = new Map<string, string>();
  return (key, make) => {
    let out = made.get(key);
    if (out === undefined) {
      out = make();
      if (made.size >= 4096) made.clear();
      made.set(key, out);
    }
    return out;
  };
}

const metricNames = remembered();
const labelNames = remembered();

/** MetricNamer.Build (escaping): the Prometheus name of a metric; an empty or all-underscore result is refused as the translator refuses it */
export function metricName(name: string, unit: string, type: OtlpNameType, suffixes: boolean): string {
  return metricNames(`${suffixes ? "s" : "n"}${type}\u0000${unit}\u0000${name}`, () => {
    const out = suffixes ? withSuffixes(name, unit, type) : withoutSuffixes(name);
    if (out === "") throw new OtlpNameError(`normalization for metric ${quoted(name)} resulted in empty name`);
    if (out !== name && /^_+$/.test(out)) throw new OtlpNameError(`normalization for metric ${quoted(name)} resulted in invalid name ${quoted(out)}`);
    return out;
  });
}

/** LabelNamer.Build (escaping): the label name of an attribute key, refused when empty or all underscores */
export function labelName(key: string): string {
  return labelNames(key, () => {
    const out = normalizeLabel(key);
    if (out === "") throw new OtlpNameError(`normalization for label name ${quoted(key)} resulted in empty name`);
    if (out !== key && /^_+$/.test(out)) throw new OtlpNameError(`normalization for label name ${quoted(key)} resulted in invalid name ${quoted(out)}`);
    return out;
  });
}
