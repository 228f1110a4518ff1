// Per-tenant overrides of limits from a runtime configuration file, as Loki
// and Mimir read theirs (-runtime-config.file): `overrides: {<tenant>:
// {<limit>: value}}`, keys being the names of the limits block, re-read every
// reload period without a restart. A file that cannot be read or has a bad
// value is not applied: the last good overrides stay and the log says why.
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import type { Logger } from "./logger.ts";
import { parseDuration, parseSize } from "./units.ts";

/** converts one value as written in the file; undefined when it is not valid */
export type OverrideConverter = (value: unknown) => unknown;

/** a byte size: an integer, or text with a unit ("512KB", "16MiB") */
export const sizeValue: OverrideConverter = (v) =>
  typeof v === "number" ? (Number.isInteger(v) ? v : undefined) : typeof v === "string" ? parseSize(v) : undefined;

/** a Prometheus duration as text ("10m", "1h30m", "0"), in milliseconds */
export const durationValue: OverrideConverter = (v) => (typeof v === "string" ? parseDuration(v) : v === 0 ? 0 : undefined);

/** any finite number (a rate), where the default happens to be whole */
export const floatValue: OverrideConverter = (v) => (typeof v === "number" ? v : undefined);

/** one of a few words */
export const oneOf = (...words: string[]): OverrideConverter => (v) => (typeof v === "string" && words.includes(v) ? v : undefined);

export type Converters<L> = Partial<Record<keyof L & string, OverrideConverter>>;

/**
 * The overrides of a parsed runtime config document, converted and checked
 * against the defaults: a key must be a limit, a value must have the type of
 * its default (after the key's converter, if any); numbers must be finite and
 * not negative, and whole where the default is whole and no converter says
 * otherwise. The first problem throws, naming tenant and key.
 */
export function parseOverrides<L extends object>(doc: unknown, defaults: L, converters: Converters<L> = {}): Map<string, Partial<L>> {
  const out = new Map<string, Partial<L>>();
  if (doc === undefined || doc === null) return out;
  if (typeof doc !== "object" || Array.isArray(doc)) throw new Error("the file must be a map with an overrides key");
  const overrides = (doc as { overrides?: unknown }).overrides;
  if (overrides === undefined || overrides === null) return out;
  if (typeof overrides !== "object" || Array.isArray(overrides)) throw new Error("overrides must be a map of tenant to limits");
  const known = defaults as Record<string, unknown>;
  const convert = converters as Record<string, OverrideConverter | undefined>;
  for (const [tenant, limits] of Object.entries(overrides)) {
    if (!limits || typeof limits !== "object" || Array.isArray(limits)) throw new Error(`overrides.${tenant} must be a map of limits`);
    const parsed: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(limits)) {
      if (!Object.hasOwn(known, name)) throw new Error(`overrides.${tenant}.${name} is not a limit (known: ${Object.keys(known).join(", ")})`);
      const def = known[name];
      const converter = convert[name];
      const v = converter ? converter(value) : value;
      let ok = v !== undefined && v !== null && typeof v === typeof def;
      if (ok && typeof v === "number") {
        ok = Number.isFinite(v) && v >= 0 && (converter !== undefined || !Number.isInteger(def) || Number.isInteger(v));
      }
      if (!ok) throw new Error(`overrides.${tenant}.${name}: ${JSON.stringify(value)} is not a valid value`);
      parsed[name] = v;
    }
    out.set(tenant, parsed as Partial<L>);
  }
  return out;
}

export interface RuntimeOverridesOptions<L extends object> {
  /** the file; "" means none (no overrides, nothing re-read) */
  file: string;
  /** how often the file is re-read, ms */
  periodMs: number;
  /** the global defaults: they name the limits and give each its type */
  defaults: L;
  /** keys whose values are converted (sizes, durations, rates, words) */
  converters?: Converters<L>;
  logger: Logger;
  /** who reads the file, for the log line ("log store", "metrics store") */
  what: string;
}

export interface RuntimeOverrides<L extends object> {
  /** a tenant's overrides, converted; undefined when the file names no such tenant */
  get(tenant: string): Partial<L> | undefined;
  /** every tenant's overrides, converted */
  all(): ReadonlyMap<string, Partial<L>>;
  /** every tenant's overrides as written in the last good file */
  raw(): Record<string, Record<string, unknown>>;
  /** increases each time a new set of overrides is applied (caches compare it) */
  readonly version: number;
  /** re-reads the file now */
  reload(): Promise<void>;
  close(): void;
}

/**
 * Reads the file once right away (so the first request already sees the
 * overrides), then every period on a timer that does not keep the process
 * alive. A problem is logged once until it changes or a good file comes.
 */
export function createRuntimeOverrides<L extends object>(options: RuntimeOverridesOptions<L>): RuntimeOverrides<L> {
  const { file, defaults, logger } = options;
  let current = new Map<string, Partial<L>>();
  let raw: Record<string, Record<string, unknown>> = {};
  let version = 0;
  let lastProblem: string | undefined;
  let lastText: string | undefined;
  let closed = false;

  const apply = (text: string) => {
    if (text === lastText) {
      lastProblem = undefined;
      return;
    }
    const doc: unknown = parseYaml(text);
    current = parseOverrides(doc, defaults, options.converters);
    const written = (doc as { overrides?: Record<string, Record<string, unknown>> } | null)?.overrides ?? {};
    raw = structuredClone(written);
    lastText = text;
    version++;
    lastProblem = undefined;
  };
  const refuse = (err: unknown) => {
    const problem = err instanceof Error ? err.message : String(err);
    if (problem === lastProblem) return;
    lastProblem = problem;
    logger.warn(`${options.what} runtime config not applied; keeping the last good overrides`, { file, err: problem });
  };

  if (file) {
    try {
      apply(readFileSync(file, "utf8"));
    } catch (err) {
      refuse(err);
    }
  }
  const reload = async () => {
    if (!file || closed) return;
    try {
      apply(await readFile(file, "utf8"));
    } catch (err) {
      refuse(err);
    }
  };
  const timer = file ? setInterval(() => void reload(), Math.max(1, options.periodMs)) : undefined;
  (timer as { unref?: () => void } | undefined)?.unref?.();

  return {
    get: (tenant) => current.get(tenant),
    all: () => current,
    raw: () => raw,
    get version() {
      return version;
    },
    reload,
    close() {
      closed = true;
      if (timer) clearInterval(timer);
    },
  };
}
