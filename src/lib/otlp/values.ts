// OTLP attribute values read from either shape decode.ts gives (a protobuf
// message or OTLP/JSON), and turned into text as the collector's pdata does
// (pcommon.Value.AsString): strings as they are, booleans and integers in
// decimal, doubles in the shortest plain decimal (Go's 'f', -1), bytes in
// base64, maps and arrays as JSON. Attribute names become label names as the
// Prometheus OTLP translator's NormalizeLabel makes them.
import { int64Value } from "./proto.ts";

type Obj = Record<string, unknown>;

export const own = (o: unknown, k: string): boolean => !!o && typeof o === "object" && Object.hasOwn(o, k);

/** a repeated field: its array (absent: empty); anything else is refused naming `where` */
export function list(o: unknown, k: string, where: string): unknown[] {
  if (!own(o, k)) return [];
  const v = (o as Obj)[k];
  if (v === null || v === undefined) return [];
  if (!Array.isArray(v)) throw new TypeError(`${where}.${k} must be an array`);
  return v;
}

/** a string field (absent: "") */
export function str(o: unknown, k: string, where: string): string {
  if (!own(o, k)) return "";
  const v = (o as Obj)[k];
  if (v === null || v === undefined) return "";
  if (typeof v !== "string") throw new TypeError(`${where}.${k} must be a string`);
  return v;
}

/** a number field (absent: 0); JSON may give 64-bit integers as decimal text */
export function num(o: unknown, k: string, where: string): number {
  if (!own(o, k)) return 0;
  const v = (o as Obj)[k];
  if (v === null || v === undefined) return 0;
  if (typeof v === "number") return v;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  if (typeof v === "string" && /^(NaN|-?Infinity)$/.test(v)) return Number(v);
  if (typeof v === "object" && v && "toNumber" in v) return (v as { toNumber(): number }).toNumber();
  throw new TypeError(`${where}.${k} must be a number`);
}

/** Go's strconv.FormatFloat(v, 'f', -1, 64): the shortest digits that read back, never an exponent */
export function formatFloat(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  const s = String(v);
  const e = s.indexOf("e");
  if (e < 0) return s;
  const negative = s.startsWith("-");
  const mantissa = s.slice(negative ? 1 : 0, e);
  const exp = Number(s.slice(e + 1));
  const [int, frac = ""] = mantissa.split(".");
  const digits = int! + frac;
  const point = int!.length + exp;
  const out = point <= 0 ? `0.${"0".repeat(-point)}${digits}` : point >= digits.length ? digits + "0".repeat(point - digits.length) : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${out}` : out;
}

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
const base64 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("base64");

/** a trace or span id as lowercase hex: bytes from protobuf, hex text from JSON (the OTLP/JSON exception to base64) */
export function idHex(o: unknown, k: string, where: string): string {
  if (!own(o, k)) return "";
  const v = (o as Obj)[k];
  if (v === null || v === undefined || v === "") return "";
  if (v instanceof Uint8Array) return v.every((b) => b === 0) ? "" : hex(v);
  if (typeof v === "string" && /^[0-9a-fA-F]*$/.test(v) && v.length % 2 === 0) return /^0*$/.test(v) ? "" : v.toLowerCase();
  throw new TypeError(`${where}.${k} must be a hex-encoded id`);
}

/** an AnyValue's value as pdata holds it, for JSON output of maps and arrays */
function plain(v: unknown, where: string, depth: number): unknown {
  if (depth > 64) throw new TypeError(`${where}: values nested more than 64 deep`);
  if (!v || typeof v !== "object") return null;
  if (own(v, "stringValue") && (v as Obj).stringValue !== null) return str(v, "stringValue", where);
  if (own(v, "boolValue") && (v as Obj).boolValue !== null) return (v as Obj).boolValue === true || (v as Obj).boolValue === "true";
  if (own(v, "intValue") && (v as Obj).intValue !== null) {
    const big = int64Value((v as Obj).intValue);
    const n = Number(big);
    return Number.isSafeInteger(n) ? n : big;
  }
  if (own(v, "doubleValue") && (v as Obj).doubleValue !== null) return num(v, "doubleValue", where);
  if (own(v, "arrayValue") && (v as Obj).arrayValue !== null) return list((v as Obj).arrayValue, "values", `${where}.arrayValue`).map((x, i) => plain(x, `${where}.arrayValue.values[${i}]`, depth + 1));
  if (own(v, "kvlistValue") && (v as Obj).kvlistValue !== null) {
    // no prototype: a key "__proto__" is a key like any other
    const out: Obj = Object.create(null) as Obj;
    for (const [i, kv] of list((v as Obj).kvlistValue, "values", `${where}.kvlistValue`).entries()) {
      out[str(kv, "key", `${where}.kvlistValue.values[${i}]`)] = plain((kv as Obj)?.value, `${where}.kvlistValue.values[${i}].value`, depth + 1);
    }
    return out;
  }
  if (own(v, "bytesValue") && (v as Obj).bytesValue !== null) return bytesText((v as Obj).bytesValue, where);
  return null;
}

function bytesText(v: unknown, where: string): string {
  if (v instanceof Uint8Array) return base64(v);
  if (typeof v === "string") return v; // OTLP/JSON gives bytes in base64 already
  throw new TypeError(`${where}.bytesValue must be base64 text`);
}

/** a JSON string as Go's encoding/json writes it: <, >, &, U+2028 and U+2029 escaped */
const goString = (text: string) =>
  JSON.stringify(text).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** JSON text of a plain value as pdata writes a map or an array (Go's json.Marshal: keys sorted), 64-bit integers exact */
function json(v: unknown): string {
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : goString(formatFloat(v));
  if (typeof v === "string") return goString(v);
  if (Array.isArray(v)) return `[${v.map(json).join(",")}]`;
  if (v && typeof v === "object") {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${goString(k)}:${json((v as Obj)[k])}`).join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

/** pcommon.Value.AsString of an AnyValue (absent or empty: "") */
export function valueText(v: unknown, where: string): string {
  if (!v || typeof v !== "object") return "";
  if (own(v, "stringValue") && (v as Obj).stringValue !== null) return str(v, "stringValue", where);
  if (own(v, "bytesValue") && (v as Obj).bytesValue !== null) return bytesText((v as Obj).bytesValue, where);
  if (own(v, "doubleValue") && (v as Obj).doubleValue !== null) return formatFloat(num(v, "doubleValue", where));
  const p = plain(v, where, 0);
  if (p === null) return "";
  if (typeof p === "object") return json(p);
  return String(p);
}

/** the longest attribute name (nested keys joined with `_` included), as the longest label name the stores take */
export const MAX_NAME_LENGTH = 1024;

/** the key/value pairs of an attribute list: nested maps flattened with `_` as the log store does, names normalized */
export function attributeLabels(kvs: unknown[], where: string, out: Array<[string, string]> = []): Array<[string, string]> {
  for (let i = 0; i < kvs.length; i++) attributeToLabels(kvs[i], `${where}[${i}]`, out);
  return out;
}

/** one attribute's pairs (a map value gives one pair per leaf, its key path joined with `_`) */
export function attributeToLabels(kv: unknown, at: string, out: Array<[string, string]>, prefix = "", depth = 0): Array<[string, string]> {
  if (depth > 64) throw new TypeError(`${at}: attributes nested more than 64 deep`);
  const key = str(kv, "key", at);
  // a chain of long keys would repeat its whole path in every leaf's name
  if (prefix.length + key.length + 1 > MAX_NAME_LENGTH) throw new TypeError(`${at}.key: the attribute's name is longer than ${MAX_NAME_LENGTH} characters${prefix ? " once joined to its map's keys" : ""}`);
  const name = normalizeLabel(prefix ? `${prefix}_${key}` : key);
  const value = (kv as Obj | null)?.value;
  if (own(value, "kvlistValue") && (value as Obj).kvlistValue !== null) {
    const inner = list((value as Obj).kvlistValue, "values", `${at}.value.kvlistValue`);
    for (let i = 0; i < inner.length; i++) attributeToLabels(inner[i], `${at}.value.kvlistValue.values[${i}]`, out, name, depth + 1);
  } else {
    out.push([name, valueText(value, `${at}.value`)]);
  }
  return out;
}

/** an attribute's raw key and its value, without flattening (resource attribute lookups) */
export function attributeMap(kvs: unknown[], where: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (let i = 0; i < kvs.length; i++) out.set(str(kvs[i], "key", `${where}[${i}]`), (kvs[i] as Obj | null)?.value);
  return out;
}

/**
 * otlptranslator.NormalizeLabel: every character but ASCII letters, digits and `_` becomes `_`;
 * a name starting with a digit gets `key_` before it, one starting with a single `_` gets `key`
 */
export function normalizeLabel(name: string): string {
  let out = normalized.get(name);
  if (out === undefined) {
    out = normalize(name);
    // attribute names repeat from record to record; the memo is bounded in count and in length
    if (normalized.size < 4096 && name.length <= 256) normalized.set(name, out);
  }
  return out;
}

const normalized = new Map<string, string>();

function normalize(name: string): string {
  if (!name) return name;
  let out = name.replace(/[^a-zA-Z0-9_]/gu, "_");
  if (/^[0-9]/.test(out)) out = `key_${out}`;
  else if (out.startsWith("_") && !out.startsWith("__")) out = `key${out}`;
  return out;
}
