// Per-tenant limits: the global defaults from the config, overridden per
// tenant by the runtime config file (overrides: {<tenant>: {<limit>: value}}),
// which is re-read on a period; a bad file keeps the last good overrides.
import type { Config } from "../../../config/schema.ts";
import type { Logger } from "../../../lib/logger.ts";
import {
  createRuntimeOverrides,
  durationValue,
  floatValue,
  oneOf,
  parseOverrides as parseRuntimeOverrides,
  sizeValue,
  type Converters,
} from "../../../lib/runtime-overrides.ts";
import { otlpConfigValue } from "../../../config/otlp-logs.ts";

export type Limits = Config["logs"]["limits"];

/** values written with units in the file, as in the config file; rates in MiB/s may be fractions */
const CONVERTERS: Converters<Limits> = {
  ingestion_rate_mb: floatValue,
  ingestion_burst_size_mb: floatValue,
  max_line_size: sizeValue,
  max_structured_metadata_size: sizeValue,
  reject_old_samples_max_age: durationValue,
  max_query_length: durationValue,
  query_timeout: durationValue,
  retention_period: durationValue,
  deletion_mode: oneOf("disabled", "filter-only", "filter-and-delete"),
  otlp_config: otlpConfigValue,
};

export interface LimitsSource {
  of(tenant: string): Limits;
  /** re-reads the runtime config file now */
  reload(): Promise<void>;
  close(): void;
}

/** every tenant's overrides, converted like the config file's values; unknown keys or bad values throw */
export function parseOverrides(raw: unknown, defaults: Limits): Map<string, Partial<Limits>> {
  return parseRuntimeOverrides(raw, defaults, CONVERTERS);
}

export function createLimits(config: Config["logs"], logger: Logger): LimitsSource {
  const defaults = config.limits;
  const overrides = createRuntimeOverrides({
    file: config.runtime_config_file,
    periodMs: config.runtime_config_reload_period,
    defaults,
    converters: CONVERTERS,
    logger,
    what: "log store",
  });
  const cache = new Map<string, Limits>();
  let cachedVersion = overrides.version;
  return {
    of(tenant) {
      const own = overrides.get(tenant);
      if (!own) return defaults;
      if (cachedVersion !== overrides.version) {
        cache.clear();
        cachedVersion = overrides.version;
      }
      let l = cache.get(tenant);
      if (!l) {
        l = { ...defaults, ...own };
        cache.set(tenant, l);
      }
      return l;
    },
    reload: overrides.reload,
    close: overrides.close,
  };
}
