// Numbers, sizes and times as the page shows them.

const compact = new Intl.NumberFormat("en", { maximumFractionDigits: 1 });

export function number(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "–";
  if (Math.abs(n) >= 1e9) return `${compact.format(n / 1e9)}G`;
  if (Math.abs(n) >= 1e6) return `${compact.format(n / 1e6)}M`;
  if (Math.abs(n) >= 1e4) return `${compact.format(n / 1e3)}k`;
  return compact.format(n);
}

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

export function rate(n: number | null | undefined, unit: string): string {
  return n === null || n === undefined ? "–" : `${number(n)} ${unit}/s`;
}

export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "never";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "–";
  const s = Math.round((now - t) / 1000);
  if (s < 5) return "just now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} days ago`;
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return "–";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "–" : d.toLocaleString();
}

const DAY = 86400;

/** how long a new token lives, for a select: [seconds, label]; "0" never expires */
export const TOKEN_LIFETIMES: [string, string][] = [
  ["0", "Never"],
  [String(DAY), "1 day"],
  [String(7 * DAY), "7 days"],
  [String(30 * DAY), "30 days"],
  [String(90 * DAY), "90 days"],
  [String(365 * DAY), "1 year"],
];

/** a retention period as the stores answer it ("31d"; "0s" is forever) */
export const retention = (period: string | undefined): string => (period === undefined ? "–" : period === "0s" ? "kept forever" : period);
