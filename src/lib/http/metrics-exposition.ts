// GET /metrics: a prom-client registry in Prometheus's text format or, where
// the listener offers it, in OpenMetrics when the scraper prefers it
// (Prometheus's Accept header lists application/openmetrics-text before
// text/plain), as client_golang's promhttp negotiates with EnableOpenMetrics.
//
// prom-client renders one format per registry, and rendering OpenMetrics
// renames its counters in place (their _total goes), which would spoil the
// next Prometheus rendering of the same metrics: so the Prometheus text is
// rewritten instead. The two formats differ, for what prom-client writes, in
// a counter's family name (without _total in OpenMetrics, its samples keep
// it), quotes in HELP (escaped in OpenMetrics), untyped (unknown), no blank
// lines, and the closing # EOF.
import type { Context } from "hono";
import { Registry } from "prom-client";

export interface MetricsAnswerOptions {
  /** answer in OpenMetrics when the Accept header prefers it */
  openMetrics?: boolean;
}

export async function metricsAnswer(c: Context, registry: Registry, options: MetricsAnswerOptions = {}): Promise<Response> {
  const text = await registry.metrics();
  if (options.openMetrics && prefersOpenMetrics(c.req.header("Accept"))) {
    return c.body(toOpenMetrics(text), 200, { "Content-Type": Registry.OPENMETRICS_CONTENT_TYPE });
  }
  return c.text(text, 200, { "Content-Type": registry.contentType });
}

/** the media type of highest quality (the first of equals) that is OpenMetrics rather than text/plain or anything */
export function prefersOpenMetrics(accept: string | undefined): boolean {
  if (!accept) return false;
  let best: { q: number; openMetrics: boolean } | undefined;
  for (const part of accept.split(",")) {
    const [type = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const openMetrics = type === "application/openmetrics-text";
    if (!openMetrics && type !== "text/plain" && type !== "*/*") continue;
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!(q > 0)) continue;
    if (!best || q > best.q) best = { q, openMetrics };
  }
  return best?.openMetrics ?? false;
}

/** prom-client's Prometheus text (families apart by a blank line, HELP then TYPE first) as OpenMetrics 1.0 */
export function toOpenMetrics(text: string): string {
  const out: string[] = [];
  for (const family of text.split("\n\n")) {
    const lines = family.split("\n").filter((l) => l !== "");
    const typeLine = lines.find((l) => l.startsWith("# TYPE "));
    const [name = "", type = ""] = typeLine ? typeLine.slice(7).split(" ") : [];
    const counter = type === "counter";
    const familyName = counter && name.endsWith("_total") ? name.slice(0, -6) : name;
    for (const line of lines) {
      if (line.startsWith("# HELP ")) {
        const help = line.slice(7 + name.length + 1);
        out.push(`# HELP ${familyName} ${help.replace(/"/g, '\\"')}`);
      } else if (line.startsWith("# TYPE ")) {
        out.push(`# TYPE ${familyName} ${type === "untyped" ? "unknown" : type}`);
      } else if (counter && name === familyName && (line.startsWith(`${name} `) || line.startsWith(`${name}{`))) {
        // a counter named without _total: its samples take it
        out.push(`${name}_total${line.slice(name.length)}`);
      } else {
        out.push(line);
      }
    }
  }
  return `${out.join("\n")}\n# EOF\n`;
}
