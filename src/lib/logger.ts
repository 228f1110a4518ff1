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
  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (rank[level] < min) return;
    const record: LogFields = { ts: now().toISOString(), level, msg, ...bound, ...fields };
    const line = options.format === "json" ? JSON.stringify(record, jsonReplacer) : toLogfmt(record);
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

function logfmtValue(raw: unknown): string {
  const text =
    raw instanceof Error ? raw.message
    : typeof raw === "string" ? raw
    : typeof raw === "object" && raw !== null ? JSON.stringify(raw, jsonReplacer)
    : String(raw);
  return text === "" || /[\s"=\\]/.test(text) || /[\x00-\x1f]/.test(text) ? JSON.stringify(text) : text;
}

/** A logger that drops everything (for tools and tests that need silence). */
export const silentLogger: Logger = createLogger({ level: "error", format: "logfmt", write: () => {} });
