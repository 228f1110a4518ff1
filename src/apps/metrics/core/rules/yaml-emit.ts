// A YAML writer that reproduces gopkg.in/yaml.v3's output for the shapes the
// ruler's configuration API answers (Mimir marshals rule groups with it):
// 4-space indentation rounded to multiples of 4, sequences indented under
// their key, map keys in yaml.v3's order, and its choice of scalar style
// (plain, 'single', "double" or a |- literal block). Lines are never folded
// (yaml.v3 sets no width).
import { compareYamlKeys } from "./go-format.ts";

/** a string marshalled from a Go string (stringv: YAML 1.1 booleans and base-60 numbers are quoted) */
export interface YamlString {
  kind: "string";
  value: string;
  /** marshalled from a yaml.Node set with SetString (Mimir's record, alert and expr): no 1.1 quoting */
  node?: boolean;
  /** a number or boolean, written as is */
  raw?: boolean;
}
export type YamlValue = string | YamlString | YamlValue[] | YamlMap;
/** a mapping in the order given; sortedMap() orders keys as yaml.v3 does for Go maps */
export type YamlMap = Map<string, YamlValue>;

export const nodeString = (value: string): YamlString => ({ kind: "string", value, node: true });
export const rawScalar = (value: string): YamlString => ({ kind: "string", value, raw: true });

export function sortedMap(record: Record<string, string>): YamlMap {
  return new Map(Object.keys(record).sort(compareYamlKeys).map((k) => [k, record[k]!]));
}

/** marshals a document; an empty top-level map is "{}\n" as yaml.v3 writes it */
export function emitYaml(root: YamlValue): string {
  if (root instanceof Map) return root.size === 0 ? "{}\n" : `${emitMap(root, 0, false).join("\n")}\n`;
  if (Array.isArray(root)) return root.length === 0 ? "[]\n" : `${emitSeq(root, 0, false).join("\n")}\n`;
  return `${scalar(root, 0, false).join("\n")}\n`;
}

/** yaml.v3 aligns each deeper block to the next multiple of the indentation (4) */
const deeper = (indent: number) => 4 * Math.floor((indent + 4) / 4);

function emitMap(map: YamlMap, indent: number, firstInline: boolean): string[] {
  const lines: string[] = [];
  let first = true;
  for (const [key, value] of map) {
    const prefix = first && firstInline ? "" : " ".repeat(indent);
    first = false;
    const k = scalar(key, 0, true)[0]!;
    if (value instanceof Map) {
      if (value.size === 0) lines.push(`${prefix}${k}: {}`);
      else lines.push(`${prefix}${k}:`, ...emitMap(value, deeper(indent), false));
    } else if (Array.isArray(value)) {
      if (value.length === 0) lines.push(`${prefix}${k}: []`);
      else lines.push(`${prefix}${k}:`, ...emitSeq(value, deeper(indent), false));
    } else {
      const [head, ...rest] = scalar(value, deeper(indent), false);
      lines.push(`${prefix}${k}: ${head}`, ...rest);
    }
  }
  return lines;
}

function emitSeq(seq: YamlValue[], indent: number, firstInline: boolean): string[] {
  const lines: string[] = [];
  seq.forEach((item, i) => {
    const prefix = i === 0 && firstInline ? "" : " ".repeat(indent);
    let body: string[];
    if (item instanceof Map) body = item.size === 0 ? ["{}"] : emitMap(item, indent + 2, true);
    else if (Array.isArray(item)) body = item.length === 0 ? ["[]"] : emitSeq(item, indent + 2, true);
    else body = scalar(item, indent + 2, false);
    lines.push(`${prefix}- ${body[0]}`, ...body.slice(1));
  });
  return lines;
}

// ---- scalars ----

const OLD_BOOLS = new Set(["y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "n", "N", "no", "No", "NO", "off", "Off", "OFF"]);
const NULLS = new Set(["", "~", "null", "Null", "NULL"]);
const BOOLS = new Set(["true", "True", "TRUE", "false", "False", "FALSE"]);
const SPECIAL_FLOATS = new Set([".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"]);
const INT_RE = /^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
const FLOAT_RE = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const TIMESTAMP_RE = /^\d{4}-\d{1,2}-\d{1,2}(?:(?:[Tt]\d{1,2}:\d{1,2}:\d{1,2}(?:\.\d+)?(?:Z|[+-]\d{1,2}:\d{2}))|(?: \d{1,2}:\d{1,2}:\d{1,2}(?:\.\d+)?))?$/;
const BASE60_RE = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/** yaml.v3's resolve(): true when a plain scalar with this text would not read back as a string */
function resolvesToNonString(s: string): boolean {
  if (NULLS.has(s) || BOOLS.has(s) || SPECIAL_FLOATS.has(s)) return true;
  const c = s[0]!;
  if (c === ".") return /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s);
  if (c === "+" || c === "-" || (c >= "0" && c <= "9")) {
    if (TIMESTAMP_RE.test(s)) return true;
    const plain = s.replaceAll("_", "");
    return INT_RE.test(plain) || FLOAT_RE.test(plain);
  }
  return false;
}

const isBreak = (c: string) => c === "\n" || c === "\r" || c === "\u0085" || c === "\u2028" || c === "\u2029";
const isBlankz = (c: string | undefined) => c === undefined || c === " " || c === "\t" || isBreak(c) || c === "\0";
function isPrintable(cp: number): boolean {
  return cp === 0x0a || (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff);
}

interface Analysis {
  multiline: boolean;
  blockPlain: boolean;
  singleQuoted: boolean;
  block: boolean;
}

/** yaml_emitter_analyze_scalar */
function analyze(value: string): Analysis {
  if (value === "") return { multiline: false, blockPlain: true, singleQuoted: true, block: false };
  const chars = Array.from(value);
  let blockIndicators = value.startsWith("---") || value.startsWith("...");
  let leadingSpace = false, leadingBreak = false, trailingSpace = false, trailingBreak = false;
  let breakSpace = false, spaceBreak = false, previousSpace = false, previousBreak = false;
  let lineBreaks = false, tabs = false, specials = false;
  let precededByWhitespace = true;
  let followedByWhitespace = isBlankz(chars[1]);
  chars.forEach((c, i) => {
    if (i === 0) {
      if ("#,[]{}&*!|>'\"%@`".includes(c)) blockIndicators = true;
      else if ((c === "?" || c === ":") && followedByWhitespace) blockIndicators = true;
      else if (c === "-" && followedByWhitespace) blockIndicators = true;
    } else if (c === ":" && followedByWhitespace) blockIndicators = true;
    else if (c === "#" && precededByWhitespace) blockIndicators = true;
    const cp = c.codePointAt(0)!;
    if (c === "\t") tabs = true;
    else if (!isPrintable(cp)) specials = true;
    const last = i === chars.length - 1;
    if (c === " ") {
      if (i === 0) leadingSpace = true;
      if (last) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (last) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankz(c);
    followedByWhitespace = isBlankz(chars[i + 2]);
  });
  let blockPlain = true, singleQuoted = true, block = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) blockPlain = false;
  if (trailingSpace) block = false;
  if (breakSpace) blockPlain = singleQuoted = false;
  if (spaceBreak || tabs || specials) blockPlain = singleQuoted = false;
  if (spaceBreak || specials) block = false;
  if (lineBreaks) blockPlain = false;
  if (blockIndicators) blockPlain = false;
  return { multiline: lineBreaks, blockPlain, singleQuoted, block };
}

const ESCAPES: Record<string, string> = {
  "\0": "\\0", "\x07": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r",
  "\x1b": "\\e", '"': '\\"', "\\": "\\\\", "\u0085": "\\N", "\u00a0": "\\_", "\u2028": "\\L", "\u2029": "\\P",
};

function doubleQuoted(value: string): string {
  let out = '"';
  for (const c of value) {
    const cp = c.codePointAt(0)!;
    if (!isPrintable(cp) || cp === 0xfeff || isBreak(c) || c === '"' || c === "\\") {
      const esc = ESCAPES[c];
      if (esc) out += esc;
      else if (cp <= 0xff) out += `\\x${cp.toString(16).toUpperCase().padStart(2, "0")}`;
      else if (cp <= 0xffff) out += `\\u${cp.toString(16).toUpperCase().padStart(4, "0")}`;
      else out += `\\U${cp.toString(16).toUpperCase().padStart(8, "0")}`;
    } else out += c;
  }
  return `${out}"`;
}

function literal(value: string, indent: number): string[] {
  let header = "|";
  if (value[0] === " " || value[0] === "\n") header += "4";
  if (!value.endsWith("\n")) header += "-";
  else if (value === "\n" || value.endsWith("\n\n")) header += "+";
  const body = value.endsWith("\n") ? value.slice(0, -1) : value;
  return [header, ...body.split("\n").map((l) => (l === "" ? "" : " ".repeat(indent) + l))];
}

/** one scalar; the first line goes after "key: " or "- ", block lines are indented by `indent` */
function scalar(v: string | YamlString, indent: number, key: boolean): string[] {
  const value = typeof v === "string" ? v : v.value;
  if (typeof v !== "string" && v.raw) return [value];
  const fromNode = typeof v !== "string" && v.node === true;
  let style: "plain" | "single" | "double" | "literal";
  if (value.includes("\n")) style = "literal";
  else if (value === "" || resolvesToNonString(value) || (!fromNode && (OLD_BOOLS.has(value) || BASE60_RE.test(value)))) style = "double";
  else style = "plain";
  const a = analyze(value);
  if (style === "plain" && (!a.blockPlain || (key && a.multiline))) style = "single";
  if (style === "single" && (!a.singleQuoted || (key && a.multiline))) style = "double";
  if (style === "literal" && (!a.block || key || /[\r\u0085\u2028\u2029]/.test(value))) style = "double";
  switch (style) {
    case "plain": return [value];
    case "single": return [`'${value.replaceAll("'", "''")}'`];
    case "double": return [doubleQuoted(value)];
    case "literal": return literal(value, indent);
  }
}
