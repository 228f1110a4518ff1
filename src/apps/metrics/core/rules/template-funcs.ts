// The values and functions of alert templates: Go's fmt printing and printf,
// Prometheus's template functions (humanize, humanizeDuration, ...).
// Functions that need a query (query, first, label, ...) or links are known
// to the parser, so templates using them are accepted, but expanding them
// fails the way a Prometheus template error does.
import { compileUnanchored, RegexSyntaxError, replaceAll, type Regex } from "../../../../lib/re2.ts";
import { formatFloatF, formatFloatG, goQuote } from "./go-format.ts";

/** a Go int constant (float64 values stay JavaScript numbers) */
export class GoInt {
  constructor(readonly v: number) {}
}
/** a map[string]string ($labels, $externalLabels) */
export class LabelMap {
  constructor(readonly m: Record<string, string>) {}
}
/** template.AlertTemplateData, the dot of alert templates */
export class AlertData {
  constructor(
    readonly Labels: LabelMap,
    readonly ExternalLabels: LabelMap,
    readonly ExternalURL: string,
    readonly Value: number,
  ) {}
}
export type Value = string | number | boolean | null | GoInt | LabelMap | AlertData;

export class TemplateError extends Error {}

/** a template's regex in RE2 (src/lib/re2.ts: linear time, Go's syntax); a bad one fails the call as Go's does */
function userRegex(fn: string, pattern: string, wording: (msg: string) => string): Regex {
  try {
    return compileUnanchored(pattern);
  } catch (err) {
    if (err instanceof RegexSyntaxError) throw new TemplateError(`error calling ${fn}: ${wording(err.message)}`);
    throw err;
  }
}

/** Go's regexp quote: backquoted when strconv.CanBackquote, else a Go string literal */
const backquote = (s: string) => (/^[^`\x00-\x08\x0a-\x1f\x7f\ufeff]*$/.test(s) ? `\`${s}\`` : goQuote(s));

export function typeName(v: Value): string {
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "float64";
  if (typeof v === "boolean") return "bool";
  if (v === null) return "<nil>";
  if (v instanceof GoInt) return "int";
  if (v instanceof LabelMap) return "map[string]string";
  return "template.AlertTemplateData";
}

/** fmt.Sprint of one value */
export function printValue(v: Value): string {
  if (typeof v === "string") return v;
  if (typeof v === "number") return formatFloatG(v);
  if (typeof v === "boolean") return String(v);
  if (v === null) return "<no value>";
  if (v instanceof GoInt) return String(v.v);
  if (v instanceof LabelMap) {
    return `map[${Object.keys(v.m).sort().map((k) => `${k}:${v.m[k]}`).join(" ")}]`;
  }
  return `{${printValue(v.Labels)} ${printValue(v.ExternalLabels)} ${v.ExternalURL} ${printValue(v.Value)}}`;
}

/** Go's truth: false, 0, nil and empty strings and maps are false */
export function truth(v: Value): boolean {
  if (typeof v === "string") return v !== "";
  if (typeof v === "number") return v !== 0;
  if (typeof v === "boolean") return v;
  if (v === null) return false;
  if (v instanceof GoInt) return v.v !== 0;
  if (v instanceof LabelMap) return Object.keys(v.m).length > 0;
  return true;
}

function toFloat(v: Value): number {
  if (typeof v === "number") return v;
  if (v instanceof GoInt) return v.v;
  if (typeof v === "string") {
    const s = v.trim() === v ? v.replace(/^([+-]?)inf(inity)?$/i, "$1Infinity").replace(/^nan$/i, "NaN") : "x";
    const n = s === "" ? NaN : Number(s);
    if (Number.isNaN(n) && s !== "NaN") throw new TemplateError(`strconv.ParseFloat: parsing ${goQuote(v)}: invalid syntax`);
    return n;
  }
  throw new TemplateError(`can't convert ${printValue(v)} to float`);
}

const g4 = (v: number) => formatFloatG(v, 4);

function scaled(v: number, prefixes: string[], base: number, small: string[]): string {
  if (Math.abs(v) >= 1) {
    let prefix = "";
    for (const p of prefixes) {
      if (Math.abs(v) < base) break;
      prefix = p;
      v /= base;
    }
    return `${g4(v)}${prefix}`;
  }
  let prefix = "";
  for (const p of small) {
    if (Math.abs(v) >= 1) break;
    prefix = p;
    v *= 1000;
  }
  return `${g4(v)}${prefix}`;
}

const SMALL = ["m", "u", "n", "p", "f", "a", "z", "y"];

function humanizeDuration(v: number): string {
  if (!Number.isFinite(v)) return g4(v);
  if (v === 0) return `${g4(v)}s`;
  if (Math.abs(v) >= 1) {
    const sign = v < 0 ? "-" : "";
    const abs = Math.abs(v);
    const d = Math.trunc(abs);
    const seconds = d % 60, minutes = Math.floor(d / 60) % 60, hours = Math.floor(d / 3600) % 24, days = Math.floor(d / 86400);
    if (days !== 0) return `${sign}${days}d ${hours}h ${minutes}m ${seconds}s`;
    if (hours !== 0) return `${sign}${hours}h ${minutes}m ${seconds}s`;
    if (minutes !== 0) return `${sign}${minutes}m ${seconds}s`;
    return `${sign}${g4(abs)}s`;
  }
  return `${scaled(v, [], 1000, SMALL)}s`;
}

/** fmt.Sprint of a time.Time in UTC: 2006-01-02 15:04:05.999999999 +0000 UTC */
function goTimeString(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  const iso = new Date(ms).toISOString();
  const frac = iso.slice(20, 23).replace(/0+$/, "");
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac ? `.${frac}` : ""} +0000 UTC`;
}

function str(v: Value, fn: string): string {
  if (typeof v !== "string") throw new TemplateError(`wrong type for value; expected string; got ${typeName(v)} (in ${fn})`);
  return v;
}

function compare(fn: string, a: Value, b: Value): number {
  const kind = (v: Value) => (typeof v === "number" ? "float" : v instanceof GoInt ? "int" : typeof v === "string" ? "string" : typeName(v));
  if (kind(a) !== kind(b)) throw new TemplateError(`error calling ${fn}: incompatible types for comparison`);
  const x = a instanceof GoInt ? a.v : a;
  const y = b instanceof GoInt ? b.v : b;
  if (typeof x === "number" && typeof y === "number") return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === "string" && typeof y === "string") return x < y ? -1 : x > y ? 1 : 0;
  if (fn === "eq" || fn === "ne") return x === y ? 0 : 1;
  throw new TemplateError(`error calling ${fn}: invalid type for comparison`);
}

function splitHostPort(hostport: string): [string, string] | undefined {
  const m = /^\[([^\]]*)\]:(\d*)$/.exec(hostport) ?? /^([^:]*):(\d*)$/.exec(hostport);
  return m ? [m[1]!, m[2]!] : undefined;
}

// ---- printf ----

function pad(s: string, width: number | undefined, flags: string, numeric: boolean): string {
  if (width === undefined || s.length >= width) return s;
  if (flags.includes("-")) return s.padEnd(width, " ");
  if (flags.includes("0") && numeric) {
    const sign = /^[+-]/.test(s) ? s[0]! : "";
    return sign + s.slice(sign.length).padStart(width - sign.length, "0");
  }
  return s.padStart(width, " ");
}

function badVerb(verb: string, v: Value): string {
  return `%!${verb}(${typeName(v)}=${printValue(v)})`;
}

function formatOne(verb: string, v: Value, flags: string, prec: number | undefined): { s: string; numeric: boolean } {
  const plus = (s: string, n: number) => (flags.includes("+") && n >= 0 ? `+${s}` : flags.includes(" ") && n >= 0 ? ` ${s}` : s);
  switch (verb) {
    case "v":
      if (typeof v === "number") return { s: plus(formatFloatG(v, prec ?? -1), v), numeric: true };
      return { s: printValue(v), numeric: v instanceof GoInt };
    case "s":
      if (typeof v === "string") return { s: prec === undefined ? v : Array.from(v).slice(0, prec).join(""), numeric: false };
      return { s: badVerb(verb, v), numeric: false };
    case "q":
      return { s: typeof v === "string" ? goQuote(v) : badVerb(verb, v), numeric: false };
    case "t":
      return { s: typeof v === "boolean" ? String(v) : badVerb(verb, v), numeric: false };
    case "d":
      return v instanceof GoInt ? { s: plus(String(v.v), v.v), numeric: true } : { s: badVerb(verb, v), numeric: false };
    case "x":
    case "X": {
      let s: string;
      if (v instanceof GoInt) s = (v.v < 0 ? "-" : "") + Math.abs(v.v).toString(16);
      else if (typeof v === "string") s = Array.from(new TextEncoder().encode(v), (b) => b.toString(16).padStart(2, "0")).join("");
      else return { s: badVerb(verb, v), numeric: false };
      return { s: verb === "X" ? s.toUpperCase() : s, numeric: true };
    }
    case "f":
    case "F":
    case "e":
    case "E":
    case "g":
    case "G": {
      if (typeof v !== "number") return { s: badVerb(verb, v), numeric: false };
      const lower = verb.toLowerCase();
      let s: string;
      if (!Number.isFinite(v)) s = formatFloatG(v);
      else if (lower === "f") s = formatFloatF(v, prec ?? 6);
      else if (lower === "e") s = prec === undefined ? v.toExponential(6) : v.toExponential(Math.min(prec, 100));
      else s = formatFloatG(v, prec ?? -1);
      if (lower === "e") s = s.replace(/e([+-])(\d)$/, "e$10$2");
      if (verb !== lower) s = s.toUpperCase();
      return { s: plus(s, v), numeric: true };
    }
    default:
      return { s: badVerb(verb, v), numeric: false };
  }
}

/** fmt.Sprintf for the verbs templates use: %v %s %q %t %d %x %f %e %g, flags, width and precision */
export function sprintf(format: string, args: Value[]): string {
  let out = "";
  let next = 0;
  const re = /%([-+# 0]*)(\d+)?(?:\.(\d*))?([a-zA-Z%])?/g;
  let last = 0;
  for (let m = re.exec(format); m; m = re.exec(format)) {
    out += format.slice(last, m.index);
    last = re.lastIndex;
    const [, flags = "", width, precText, verb] = m;
    if (verb === undefined) {
      out += "%!(NOVERB)";
      continue;
    }
    if (verb === "%") {
      out += "%";
      continue;
    }
    if (next >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    const prec = precText === undefined ? undefined : precText === "" ? 0 : Number(precText);
    const { s, numeric } = formatOne(verb, args[next++]!, flags, prec);
    out += pad(s, width === undefined ? undefined : Number(width), flags, numeric);
  }
  out += format.slice(last);
  if (next < args.length) out += `%!(EXTRA ${args.slice(next).map((a) => `${typeName(a)}=${printValue(a)}`).join(", ")})`;
  return out;
}

// ---- the function table ----

type Fn = (args: Value[]) => Value;

function arity(name: string, args: Value[], n: number): void {
  if (args.length !== n) throw new TemplateError(`wrong number of args for ${name}: want ${n} got ${args.length}`);
}

const one = (name: string, f: (v: Value) => Value): Fn => (args) => {
  arity(name, args, 1);
  return f(args[0]!);
};

const IMPLEMENTED: Record<string, Fn> = {
  humanize: one("humanize", (v) => {
    const x = toFloat(v);
    if (x === 0 || !Number.isFinite(x)) return g4(x);
    return scaled(x, ["k", "M", "G", "T", "P", "E", "Z", "Y"], 1000, SMALL);
  }),
  humanize1024: one("humanize1024", (v) => {
    const x = toFloat(v);
    if (Math.abs(x) <= 1 || !Number.isFinite(x)) return g4(x);
    return scaled(x, ["ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"], 1024, []);
  }),
  humanizeDuration: one("humanizeDuration", (v) => humanizeDuration(toFloat(v))),
  humanizePercentage: one("humanizePercentage", (v) => `${g4(toFloat(v) * 100)}%`),
  humanizeTimestamp: one("humanizeTimestamp", (v) => {
    const x = toFloat(v);
    return Number.isFinite(x) ? goTimeString(x) : g4(x);
  }),
  toUpper: one("toUpper", (v) => str(v, "toUpper").toUpperCase()),
  toLower: one("toLower", (v) => str(v, "toLower").toLowerCase()),
  title: one("title", (v) => str(v, "title").replace(/(^|[^\p{L}\p{N}_'])(\p{L})/gu, (_m, a: string, b: string) => a + b.toUpperCase())),
  safeHtml: one("safeHtml", (v) => str(v, "safeHtml")),
  stripPort: one("stripPort", (v) => splitHostPort(str(v, "stripPort"))?.[0] ?? (v as string)),
  stripDomain: one("stripDomain", (v) => {
    const hostPort = str(v, "stripDomain");
    const split = splitHostPort(hostPort);
    const host = split ? split[0] : hostPort;
    if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(":")) return hostPort;
    const short = host.split(".")[0]!;
    return split && split[1] !== "" ? `${short}:${split[1]}` : short;
  }),
  parseDuration: one("parseDuration", (v) => {
    const m = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/.exec(str(v, "parseDuration"));
    if (!m || v === "") throw new TemplateError(`not a valid duration string: ${goQuote(v as string)}`);
    const units = [31536000, 604800, 86400, 3600, 60, 1, 0.001];
    return units.reduce((sum, u, i) => sum + Number(m[i + 1] ?? 0) * u, 0);
  }),
  reReplaceAll: (args) => {
    arity("reReplaceAll", args, 3);
    const [pattern, repl, text] = args.map((a) => str(a!, "reReplaceAll")) as [string, string, string];
    // regexp.MustCompile: its panic becomes the template's error
    const re = userRegex("reReplaceAll", pattern, (msg) => `regexp: Compile(${backquote(pattern)}): ${msg}`);
    return replaceAll(re, text, repl);
  },
  match: (args) => {
    arity("match", args, 2);
    return userRegex("match", str(args[0]!, "match"), (msg) => msg).test(str(args[1]!, "match"));
  },
  printf: (args) => {
    if (args.length === 0) throw new TemplateError("wrong number of args for printf: want at least 1 got 0");
    return sprintf(str(args[0]!, "printf"), args.slice(1));
  },
  print: (args) => args.map((a, i) => (i > 0 && typeof a !== "string" && typeof args[i - 1] !== "string" ? " " : "") + printValue(a)).join(""),
  println: (args) => `${args.map(printValue).join(" ")}\n`,
  len: one("len", (v) => {
    if (typeof v === "string") return new GoInt(new TextEncoder().encode(v).length);
    if (v instanceof LabelMap) return new GoInt(Object.keys(v.m).length);
    throw new TemplateError(`error calling len: len of type ${typeName(v)}`);
  }),
  index: (args) => {
    if (args.length < 1) throw new TemplateError("wrong number of args for index: want at least 1 got 0");
    let item = args[0]!;
    for (const key of args.slice(1)) {
      if (!(item instanceof LabelMap)) throw new TemplateError(`error calling index: can't index item of type ${typeName(item)}`);
      item = item.m[str(key, "index")] ?? "";
    }
    return item;
  },
  not: one("not", (v) => !truth(v)),
  and: (args) => {
    for (const a of args) if (!truth(a)) return a;
    return args[args.length - 1] ?? null;
  },
  or: (args) => {
    for (const a of args) if (truth(a)) return a;
    return args[args.length - 1] ?? null;
  },
  eq: (args) => {
    if (args.length < 2) throw new TemplateError("missing argument for comparison");
    return args.slice(1).some((b) => compare("eq", args[0]!, b) === 0);
  },
  ne: (args) => (arity("ne", args, 2), compare("ne", args[0]!, args[1]!) !== 0),
  lt: (args) => (arity("lt", args, 2), compare("lt", args[0]!, args[1]!) < 0),
  le: (args) => (arity("le", args, 2), compare("le", args[0]!, args[1]!) <= 0),
  gt: (args) => (arity("gt", args, 2), compare("gt", args[0]!, args[1]!) > 0),
  ge: (args) => (arity("ge", args, 2), compare("ge", args[0]!, args[1]!) >= 0),
  urlquery: (args) => encodeURIComponent(args.map(printValue).join("")).replace(/%20/g, "+"),
};

/** every function a Prometheus alert template may name (text/template's builtins and Prometheus's) */
const KNOWN = new Set([
  ...Object.keys(IMPLEMENTED),
  "call", "html", "js", "slice",
  "query", "first", "label", "value", "strvalue", "args", "graphLink", "tableLink", "sortByLabel",
  "toTime", "toDuration", "pathPrefix", "externalURL", "now", "urlQueryEscape",
]);

export function isFunction(name: string): boolean {
  return KNOWN.has(name);
}

export function callFunction(name: string, args: Value[]): Value {
  const fn = IMPLEMENTED[name];
  if (!fn) throw new TemplateError(`error calling ${name}: the function ${name} is not supported by this ruler`);
  return fn(args);
}

