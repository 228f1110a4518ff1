// Per-tenant limits: the global defaults from the config, overridden per
// tenant by the runtime config file (overrides: {<tenant>: {<limit>: value}}),
// which is re-read on a period; a bad file keeps the last good overrides.
import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import type { Config } from "../../../config/schema.ts";
import type { Logger } from "../../../lib/logger.ts";
import { parseDuration, parseSize } from "../../../lib/units.ts";

export type Limits = Config["logs"]["limits"];

const SIZES = new Set(["max_line_size"]);
const DURATIONS = new Set(["reject_old_samples_max_age", "max_query_length", "retention_period"]);

export interface LimitsSource {
  of(tenant: string): Limits;
  /** re-reads the runtime config file now */
  reload(): Promise<void>;
  close(): void;
}

/** one tenant's overrides, converted like the config file's values; unknown keys or bad values throw */
export function parseOverrides(raw: unknown, defaults: Limits): Map<string, Partial<Limits>> {
  const out = new Map<string, Partial<Limits>>();
  const overrides = (raw as { overrides?: unknown } | null)?.overrides;
  if (overrides === undefined || overrides === null) return out;
  if (typeof overrides !== "object" || Array.isArray(overrides)) throw new Error("overrides must be a map of tenant to limits");
  for (const [tenant, limits] of Object.entries(overrides)) {
    if (!limits || typeof limits !== "object") throw new Error(`overrides.${tenant} must be a map of limits`);
    const parsed: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(limits)) {
      if (!(name in defaults)) throw new Error(`overrides.${tenant}.${name} is not a limit (known: ${Object.keys(defaults).join(", ")})`);
      const expected = typeof defaults[name as keyof Limits];
      let v: unknown = value;
      if (SIZES.has(name)) v = typeof value === "number" ? value : parseSize(String(value));
      else if (DURATIONS.has(name)) v = parseDuration(String(value));
      if (v === undefined || v === null || typeof v !== expected || (typeof v === "number" && (!Number.isFinite(v) || v < 0))) {
        throw new Error(`overrides.${tenant}.${name}: ${JSON.stringify(value)} is not a valid value`);
      }
      parsed[name] = v;
    }
    out.set(tenant, parsed as Partial<Limits>);
  }
  return out;
}

export function createLimits(config: Config["logs"], logger: Logger): LimitsSource {
  const defaults = config.limits;
  let overrides = new Map<string, Partial<Limits>>();
  const cache = new Map<string, Limits>();
  const file = config.runtime_config_file;
  const reload = async () => {
    if (!file) return;
    try {
      overrides = parseOverrides(parseYaml(await readFile(file, "utf8")), defaults);
      cache.clear();
    } catch (err) {
      logger.warn("log store runtime config not applied; keeping the last good overrides", { file, err: (err as Error).message });
    }
  };
  const timer = file ? setInterval(() => void reload(), config.runtime_config_reload_period) : undefined;
  (timer as { unref?: () => void } | undefined)?.unref?.();
  return {
    of(tenant) {
      let l = cache.get(tenant);
      if (!l) {
        l = { ...defaults, ...overrides.get(tenant) };
        cache.set(tenant, l);
      }
      return l;
    },
    reload,
    close: () => clearInterval(timer),
  };
}
