// Durations and sizes as operators write them in Loki/Mimir configs.

/** the range of Go's int64, which bounds nanosecond timestamps and durations in the real products */
export const INT64_MAX = 2n ** 63n - 1n;
export const INT64_MIN = -(2n ** 63n);
/** whether a bigint fits in Go's int64 */
export const fitsInt64 = (n: bigint) => n >= INT64_MIN && n <= INT64_MAX;

const durationUnits: Record<string, number> = {
  ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 31_536_000_000,
};

/**
 * Parses a Prometheus-style duration ("10s", "1h30m", "7d", "500ms", "0") into
 * milliseconds; undefined when the text is not a duration.
 */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === "0") return 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w|y)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * durationUnits[m[2]!]!;
    matched = re.lastIndex;
  }
  return matched === s.length && s.length > 0 ? Math.round(total) : undefined;
}

export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  const out: string[] = [];
  let rest = ms;
  for (const unit of ["d", "h", "m", "s", "ms"] as const) {
    const size = durationUnits[unit]!;
    const n = Math.floor(rest / size);
    if (n > 0) out.push(`${n}${unit}`);
    rest -= n * size;
  }
  return out.join("");
}

const sizeUnits: Record<string, number> = {
  "": 1, b: 1,
  k: 1e3, kb: 1e3, m: 1e6, mb: 1e6, g: 1e9, gb: 1e9, t: 1e12, tb: 1e12,
  ki: 2 ** 10, kib: 2 ** 10, mi: 2 ** 20, mib: 2 ** 20, gi: 2 ** 30, gib: 2 ** 30, ti: 2 ** 40, tib: 2 ** 40,
};

/**
 * Parses a byte size the way Loki's flagext.ByteSize (go-humanize) does:
 * "256KB" = 256000, "16MiB" = 16777216, "1024" = 1024. Undefined when invalid.
 */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!m) return undefined;
  const factor = sizeUnits[m[2]!.toLowerCase()];
  return factor === undefined ? undefined : Math.round(Number(m[1]) * factor);
}

const floorDiv = (a: bigint, b: bigint) => (a >= 0n ? a / b : -((-a + b - 1n) / b));

/**
 * nanoseconds since the epoch as Go's time.RFC3339 writes them (second
 * precision, UTC), for any bigint: years past 9999 or before 1 are written as
 * plain numbers, as Go does, where Date would be an "Invalid Date"
 * (civil-from-days, H. Hinnant's algorithm).
 */
export function formatRfc3339(ns: bigint): string {
  const secs = floorDiv(ns, 1_000_000_000n);
  const days = floorDiv(secs, 86_400n);
  const sod = secs - days * 86_400n;
  const z = days + 719_468n;
  const era = floorDiv(z, 146_097n);
  const doe = z - era * 146_097n;
  const yoe = (doe - doe / 1460n + doe / 36_524n - doe / 146_096n) / 365n;
  const doy = doe - (365n * yoe + yoe / 4n - yoe / 100n);
  const mp = (5n * doy + 2n) / 153n;
  const day = doy - (153n * mp + 2n) / 5n + 1n;
  const month = mp < 10n ? mp + 3n : mp - 9n;
  const year = yoe + era * 400n + (month <= 2n ? 1n : 0n);
  const pad = (n: bigint, w = 2) => String(n).padStart(w, "0");
  const y = year < 0n ? `-${pad(-year, 4)}` : pad(year, 4);
  return `${y}-${pad(month)}-${pad(day)}T${pad(sod / 3600n)}:${pad((sod % 3600n) / 60n)}:${pad(sod % 60n)}Z`;
}

/** bytes as text with a binary unit, one decimal: "1.5 GiB", "200 B" */
export function formatSize(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let n = bytes;
  let i = 0;
  while (Math.abs(n) >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${n.toFixed(1).replace(/\.0$/, "")} ${units[i]}`;
}
