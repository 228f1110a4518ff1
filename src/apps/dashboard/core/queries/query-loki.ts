// The loki plugin's queries against the log store (or a Loki server): expr,
// queryType range (default) or instant, maxLines (jsonData.maxLines, else
// 1000), direction, legendFormat, step or intervalMs/maxDataPoints, resolution.
// Log results become one log frame (labels, Time, Line, tsNs, id: the real
// plugin's frame), metric results one Time/Value frame per series. A caller
// restricted by label rules has the expression rewritten before it leaves.
import { ApiError, badRequest } from "../../../../lib/errors.ts";
import { sendToDataSource } from "../datasources/index.ts";
import { applyLegend, labelsText, seriesFrame, type Frame } from "./data-frames.ts";
import { logApiPrefix } from "../datasources/index.ts";
import { readPromAnswer, seriesOf, type PromData } from "./prom-response.ts";
import { field, type QueryContext } from "./query-context.ts";
import { formatInterval, goDuration, interpolate, lokiStep, rangeVariables } from "./query-step.ts";

const DEFAULT_MAX_LINES = 1000;

/** Go's hash/fnv New32 (FNV-1, not 1a) of the bytes, as hex */
function fnv1(bytes: Uint8Array): string {
  let h = 0x811c9dc5;
  for (const b of bytes) {
    h = Math.imul(h, 0x01000193) >>> 0;
    h = (h ^ b) >>> 0;
  }
  return h.toString(16);
}

const encoder = new TextEncoder();

/** the real plugin's log frame: a row per line, ids unique within the frame */
function logFrame(refId: string, expr: string, data: PromData): Frame {
  const labels: unknown[] = [];
  const times: number[] = [];
  const lines: string[] = [];
  const tsNs: string[] = [];
  const ids: string[] = [];
  const seen = new Map<string, number>();
  for (const stream of (Array.isArray(data.result) ? data.result : []) as Array<{ stream?: Record<string, string>; values?: unknown[] }>) {
    const streamLabels = Object.fromEntries(Object.keys(stream.stream ?? {}).sort().map((k) => [k, String(stream.stream![k])]));
    const labelsJson = JSON.stringify(streamLabels);
    for (const entry of stream.values ?? []) {
      const [ts, line] = entry as [string, string];
      if (!/^\d+$/.test(String(ts))) throw new ApiError(500, `unexpected time format '${String(ts)}' in the data source's answer`);
      const sum = `${ts}_${fnv1(encoder.encode(`${line}_${labelsJson}`))}`;
      const n = seen.get(sum) ?? 0;
      seen.set(sum, n + 1);
      labels.push(streamLabels);
      times.push(Number(BigInt(ts) / 1_000_000n));
      lines.push(String(line));
      tsNs.push(String(ts));
      ids.push(`${sum}${n ? `_${n}` : ""}_${refId}`);
    }
  }
  return {
    refId,
    meta: {
      custom: { frameType: "LabeledTimeValues" },
      executedQueryString: `Expr: ${expr}`,
      ...(data.warnings.length ? { notices: data.warnings.map((text) => ({ severity: "warning", text })) } : {}),
    },
    fields: [
      { name: "labels", type: "other", frameType: "json.RawMessage", values: labels },
      { name: "Time", type: "time", frameType: "time.Time", values: times },
      { name: "Line", type: "string", frameType: "string", values: lines },
      { name: "tsNs", type: "string", frameType: "string", values: tsNs },
      { name: "id", type: "string", frameType: "string", values: ids },
    ],
  };
}

function metricFrames(q: QueryContext, expr: string, range: boolean, stepMs: number, legendFormat: string | undefined, data: PromData): Frame[] {
  const executed = range ? `Expr: ${expr}\nStep: ${goDuration(stepMs)}` : `Expr: ${expr}`;
  return seriesOf(data).map((s) => {
    const name = legendFormat ? applyLegend(legendFormat, s.labels) : labelsText(s.labels);
    return seriesFrame(q.refId, s.points, s.labels, {
      name,
      displayName: name,
      ...(range ? { intervalMs: stepMs } : {}),
      meta: { type: "timeseries-multi", executedQueryString: executed },
    });
  });
}

function choice<T extends string>(value: string | undefined, allowed: Record<string, T>, fallback: T, what: string): T {
  if (value === undefined || value === "") return fallback;
  const v = allowed[value];
  if (!v) throw badRequest(`invalid ${what}: ${value}`);
  return v;
}

function maxLinesOf(q: QueryContext): number {
  const own = field(q.model, "maxLines", "number");
  if (own !== undefined && own > 0) return Math.floor(own);
  const configured = Number(q.ds.jsonData?.maxLines);
  return Number.isFinite(configured) && configured > 0 ? Math.floor(configured) : DEFAULT_MAX_LINES;
}

const ns = (ms: number) => `${BigInt(Math.round(ms)) * 1_000_000n}`;

export async function queryLoki(q: QueryContext): Promise<Frame[]> {
  const rawExpr = field(q.model, "expr", "string") ?? "";
  if (!rawExpr.trim()) throw badRequest("bad request data: expr is empty: write a LogQL query");
  const queryType = choice(field(q.model, "queryType", "string"), { range: "range", instant: "instant" }, "range", "queryType");
  const direction = choice(field(q.model, "direction", "string"), { backward: "backward", forward: "forward", scan: "backward" }, "backward", "queryDirection");
  const resolution = field(q.model, "resolution", "number");
  const rangeMs = q.toMs - q.fromMs;
  // the panel's interval as the request carries it: 1s when the front end sent none
  const intervalMs = q.intervalMs || 1000;
  const stepMs = lokiStep(field(q.model, "step", "string"), intervalMs, rangeMs,
    resolution !== undefined && ((resolution >= 1 && resolution <= 5) || resolution === 10) ? resolution : 1);
  const seconds = Math.round(rangeMs / 1000);
  let expr = interpolate(rawExpr, {
    __interval_ms: String(intervalMs),
    __interval: formatInterval(intervalMs),
    __auto: queryType === "instant" ? `${seconds}s` : formatInterval(stepMs),
    ...rangeVariables(rangeMs),
  });
  if (q.restriction) expr = q.restriction.rewrite(expr);
  const range = queryType === "range";
  const params = new URLSearchParams({ query: expr, direction, limit: String(maxLinesOf(q)) });
  if (range) {
    params.set("start", ns(q.fromMs));
    params.set("end", ns(q.toMs));
    // whole milliseconds with a unit, as the real plugin sends it
    params.set("step", `${stepMs}ms`);
  } else {
    params.set("time", ns(q.toMs));
  }
  const prefix = logApiPrefix(q.ds);
  const res = await sendToDataSource(q.ds, q.credentials, { method: "GET", path: `${prefix}/${range ? "query_range" : "query"}`, query: params });
  const data = await readPromAnswer(res, q.credentials.secrets);
  if (data.resultType === "streams") return [logFrame(q.refId, expr, data)];
  return metricFrames(q, expr, range, stepMs, field(q.model, "legendFormat", "string"), data);
}
