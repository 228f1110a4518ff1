// Reads the Prometheus text exposition format (GET /metrics of the stores)
// into samples: enough for the page's live figures, which sum counters and
// gauges by name and label.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePromText(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\n/g, "\n").replace(/\\(.)/g, "$1");
    const value = Number(m[3]);
    if (!Number.isNaN(value)) out.push({ name: m[1]!, labels, value });
  }
  return out;
}

/** the sum of every sample of a metric whose labels include `match` */
export function sum(samples: readonly Sample[], name: string, match: Record<string, string> = {}): number {
  let total = 0;
  for (const s of samples) {
    if (s.name !== name) continue;
    if (Object.entries(match).every(([k, v]) => s.labels[k] === v)) total += s.value;
  }
  return total;
}
