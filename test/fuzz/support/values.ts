// Malformed inputs for the fuzz tests: strings, numbers and JSON documents of
// the wrong type or shape, huge and 400-digit numbers, lone surrogates, NUL,
// long strings, bad percent-encoding, deep nesting (within the JSON depth
// limit), invalid UTF-8 bytes. Everything is drawn from a seeded Rng.
import type { Rng } from "./prng.ts";

export const DIGITS_400 = "9".repeat(400);
export const LONG_100K = "a".repeat(100 * 1024);

/** strings that break parsers: numbers that do not fit, dates and durations that are not, control and surrogate characters */
export const NASTY_STRINGS: readonly string[] = [
  "", " ", "0", "-1", "-0", "1.5", "1.5.5", "1e309", "-1e309", "NaN", "Infinity", "-Infinity", "0x1f", "1_000",
  DIGITS_400, `${DIGITS_400}.5`, `-${DIGITS_400}`, `${DIGITS_400}d`, `${DIGITS_400}s`, "9999999999999999999y", "99999999999999999999",
  "9223372036854775807", "-9223372036854775808", "18446744073709551616", "4611686018427387904",
  "2024-13-45T99:99:99Z", "0000-00-00", "1d2h", "-5m", "5mm", "1y1y", "now-", "now-999999999999d",
  "\u0000", "a\u0000b", "\ud800", "a\udc00", "\udfff\ud800", "\uffff", "\u202e", "😀", "\r\nX-Injected: 1", "\t",
  "{", "}", "{}", "[]", "null", "true", "'", "\"", "\\", "`", "${x}", "{{", "{{.x", "{{ .Foo | bad }}", "%", "%zz", "%ff%fe",
  "../../etc/passwd", "..%2f..", "/", "//", "?", "#", "*", "a=b&c", "__proto__", "constructor", "prototype",
  '{job="a"}', '{job="a", job="b"}', '{job=~"(a|aa)+"}', "{", "up{", "sum(", "rate(x[5m]", "x[9999999999999999999y]",
  "count_over_time(vector(1)[1h:1s])", '{app="x"} |~ "a+"', '{app="x"} | line_format "{{"', '{app="x"} | json | unknown("a")',
];

export const NASTY_NUMBERS_TEXT: readonly string[] = [
  "0", "-1", "1.5", "1e308", "-1e308", "1e309", "5e-324", "9007199254740993", "18446744073709551616", "9223372036854775807",
  DIGITS_400, `-${DIGITS_400}`, `${DIGITS_400}.5`, `1${"0".repeat(399)}e10`, "-0", "0.0000000000000000000000001",
];

/** keys that real bodies of the dashboard and stores use, so wrong-typed values reach validation */
export const KEYS: readonly string[] = [
  "name", "title", "login", "email", "password", "oldPassword", "newPassword", "role", "orgId", "OrgId", "userId", "teamId", "uid",
  "type", "access", "isDefault", "basicAuth", "basicAuthUser", "jsonData", "secureJsonData", "database", "user", "version",
  "dashboardUID", "dashboardId", "panelId", "time", "timeEnd", "text", "tags", "from", "to", "queries", "refId", "datasource", "expr",
  "query", "model", "kind", "spec", "metadata", "apiVersion", "resourceVersion", "labels", "annotations", "generateName",
  "folderUid", "folderUID", "parentUid", "items", "interval", "theme", "timezone", "weekStart", "homeDashboardUID", "seconds",
  "secondsToLive", "isDisabled", "permission", "streams", "stream", "values", "timeseries", "samples", "rules", "groups",
  "condition", "data", "for", "noDataState", "execErrState", "ruleGroup", "intervalSeconds", "limit", "page", "perpage",
  "decrypt", "value", "ref", "description", "keeper", "__proto__", "constructor", "max_series", "ingestion_rate", "x",
];

const LOOPBACK_URLS = ["http://127.0.0.1:1", "http://127.0.0.1:1/%zz", "http://[::1]:1/", "http://localhost:1/a?b", "ftp://127.0.0.1:1", "javascript:alert(1)", "", "%zz"];

function jsonString(s: string): string {
  return JSON.stringify(s); // lone surrogates come out as \udxxx escapes (well-formed JSON)
}

export function nastyString(rng: Rng): string {
  const r = rng.next();
  if (r < 0.03) return LONG_100K;
  if (r < 0.08) return String.fromCharCode(...Array.from({ length: 1 + rng.int(40) }, () => rng.int(0x10000)));
  return rng.pick(NASTY_STRINGS);
}

/** JSON text (written by hand so 400-digit numbers and lone-surrogate escapes survive) */
export function jsonText(rng: Rng, depth = 0): string {
  const r = rng.next();
  const deep = depth >= 6;
  if (r < 0.12) return rng.pick(NASTY_NUMBERS_TEXT);
  if (r < 0.18) return rng.pick(["null", "true", "false"]);
  if (r < 0.45 || deep) return jsonString(nastyString(rng));
  if (r < 0.6) {
    const n = rng.int(4);
    return `[${Array.from({ length: n }, () => jsonText(rng, depth + 1)).join(",")}]`;
  }
  const n = 1 + rng.int(5);
  const fields: string[] = [];
  for (let i = 0; i < n; i++) {
    const key = rng.chance(0.85) ? rng.pick(KEYS) : nastyString(rng).slice(0, 200);
    // a URL only ever points at a closed port on this machine
    const value = key === "url" || rng.chance(0.03) ? jsonString(rng.pick(LOOPBACK_URLS)) : jsonText(rng, depth + 1);
    fields.push(`${jsonString(key)}:${value}`);
  }
  return `{${fields.join(",")}}`;
}

/** nesting up to `levels` deep (the JSON depth limit is 100) */
export function deepJson(levels: number, open = "[", close = "]"): string {
  return open.repeat(levels) + close.repeat(levels);
}

const INVALID_UTF8: readonly number[][] = [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82], [0x80]];

/** a JSON-ish document with invalid UTF-8 bytes inside a string */
export function invalidUtf8Json(rng: Rng): Uint8Array {
  const enc = new TextEncoder();
  const bytes = rng.pick(INVALID_UTF8);
  const key = rng.pick(KEYS);
  return new Uint8Array([...enc.encode(`{"${key}":"a`), ...bytes, ...enc.encode(`b","streams":[{"stream":{"job":"`), ...bytes, ...enc.encode(`"},"values":[["1","x"]]}]}`)]);
}

export function randomBytes(rng: Rng, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.int(256);
  return out;
}

/** a query-string or path segment value: well-encoded nasty text, or raw bad percent-encoding */
export function urlPiece(rng: Rng): string {
  const r = rng.next();
  if (r < 0.15) return rng.pick(["%", "%zz", "%f", "%ff", "%c0%af", "%ed%a0%80", "%00", "%2f..%2f", "%25", "%u0041", "a%"]);
  const s = nastyString(rng);
  return encodeLoosely(s.length > 4096 && rng.chance(0.7) ? s.slice(0, 4096) : s);
}

export const CONTENT_TYPES: readonly (string | undefined)[] = [
  "application/json", "application/json", "application/json", "text/plain", undefined, "application/x-www-form-urlencoded",
  "multipart/form-data", "multipart/form-data; boundary=", "application/x-protobuf", "application/json; charset=latin1",
  "application/yaml", "*/*", "application/json\u0000", "x/y; a=\"",
];

/** percent-encodes, writing a lone surrogate as its (invalid) 3-byte UTF-8 form instead of throwing */
export function encodeLoosely(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff) out += `%${(0xe0 | (c >> 12)).toString(16)}%${(0x80 | ((c >> 6) & 63)).toString(16)}%${(0x80 | (c & 63)).toString(16)}`.toUpperCase();
    else out += encodeURIComponent(ch);
  }
  return out;
}
