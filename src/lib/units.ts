// Durations and sizes as operators write them in Loki/Mimir configs.

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
