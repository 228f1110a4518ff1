// Structured logging: one line per event, logfmt (Loki/Mimir style) or JSON.
// Written by hand because the format is Outpost's own and tiny; writes go to
// stderr so stdout stays free for the startup address lines scripts parse.
// Info and debug lines of one event-loop turn go out in one write (a request
// line per request was a system call per request, and a slow reader of the
// pipe stalled the server once per line); a warning or an error is written at
// once, with whatever was gathered before it, and what is left at exit too.
import { writeSync } from "node:fs";
import { setImmediate } from "node:timers";

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = "logfmt" | "json";
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
  enabled(level: LogLevel): boolean;
}

export interface LoggerOptions {
  level: LogLevel;
  format: LogFormat;
  write?: (line: string) => void;
  now?: () => Date;
}

const rank: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export function createLogger(options: LoggerOptions, bound: LogFields = {}): Logger {
  const write = options.write ?? stderrLines();
  const urgent = options.write ? write : (line: string) => stderrLines()(line, true);
  const now = options.now ?? (() => new Date());
  const min = rank[options.level];
  // logfmt: the bound fields' text made once; a line is then written field by field, without the
  // record object, unless a field would take another's place (a repeated or an integer-like name)
  const boundText = Object.keys(bound).some(movesFields) ? undefined : pairs(bound);
  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (rank[level] < min) return;
    const ts = isoNow(now());
    let line: string;
    if (options.format === "logfmt" && boundText !== undefined && !(fields && replacesFields(fields, bound))) {
      const rest = fields ? pairs(fields) : "";
      line = `ts=${logfmtValue(ts)} level=${level} msg=${logfmtValue(msg)}${boundText && ` ${boundText}`}${rest && ` ${rest}`}`;
    } else {
      const record: LogFields = { ts, level, msg, ...bound, ...fields };
      line = options.format === "json" ? JSON.stringify(record, jsonReplacer) : toLogfmt(record);
    }
    if (rank[level] >= rank.warn) urgent(line);
    else write(line);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (fields) => createLogger(options, { ...bound, ...fields }),
    enabled: (level) => rank[level] >= min,
  };
}

let toStderr: ((line: string, now?: boolean) => void) | undefined;

/** one writer for every logger: lines gathered until the event loop turns (or 64 KiB, or an urgent line), then written at once */
function stderrLines(): (line: string, now?: boolean) => void {
  if (toStderr) return toStderr;
  let pending = "";
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (!pending) return;
    const text = pending;
    pending = "";
    process.stderr.write(text);
  };
  // at exit nothing asynchronous runs any more: what is left is written directly
  process.once("exit", () => {
    if (!pending) return;
    try {
      writeSync(2, pending);
    } catch {
      // stderr closed: nothing to tell
    }
    pending = "";
  });
  toStderr = (line, now) => {
    pending += line + "\n";
    if (now || pending.length >= 65_536) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return toStderr;
}

function jsonReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return value.message;
  if (typeof value === "bigint") return value.toString();
  return value;
}

export function toLogfmt(record: LogFields): string {
  const parts: string[] = [];
  for (const [key, raw] of Object.entries(record)) {
    if (raw === undefined) continue;
    parts.push(`${key}=${logfmtValue(raw)}`);
  }
  return parts.join(" ");
}

/** a field name that takes another place in a record than where it is written: the fixed ones, or an integer-like one (sorted first) */
const movesFields = (k: string) => k === "ts" || k === "level" || k === "msg" || (k.charCodeAt(0) >= 48 && k.charCodeAt(0) <= 57);

/** whether a line's fields name a bound field or one that moves (checked per line: no array made) */
function replacesFields(fields: LogFields, bound: LogFields): boolean {
  for (const k in fields) if (k in bound || movesFields(k)) return true;
  return false;
}

/** fields as logfmt pairs, undefined ones left out (toLogfmt of a record without integer-like names) */
function pairs(fields: LogFields): string {
  let out = "";
  for (const key in fields) {
    const raw = fields[key];
    if (raw === undefined || !Object.hasOwn(fields, key)) continue;
    out += `${out ? " " : ""}${key}=${logfmtValue(raw)}`;
  }
  return out;
}

/** the ISO text of a time, remembered for the millisecond (one per request line otherwise) */
let lastMs = NaN;
let lastIso = "";
function isoNow(d: Date): string {
  const ms = d.getTime();
  if (ms !== lastMs) {
    lastIso = d.toISOString();
    lastMs = ms;
  }
  return lastIso;
}

const NEEDS_QUOTES = /[\s"=\\\x00-\x1f]/;

function logfmtValue(raw: unknown): string {
  // a number's or a boolean's text never needs quotes (a request line has two numbers)
  if (typeof raw === "number" || typeof raw === "boolean") return String(raw);
  const text =
    raw instanceof Error ? raw.message
    : typeof raw === "string" ? raw
    : typeof raw === "object" && raw !== null ? JSON.stringify(raw, jsonReplacer)
    : String(raw);
  return text === "" || NEEDS_QUOTES.test(text) ? JSON.stringify(text) : text;
}

/** A logger that drops everything (for tools and tests that need silence). */
export const silentLogger: Logger = createLogger({ level: "error", format: "logfmt", write: () => {} });
