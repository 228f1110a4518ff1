// The prometheus plugin's queries (the metrics store at <url>/prometheus and
// any Prometheus-compatible server): expr, instant/range (range when neither
// is set), legendFormat, interval, intervalMs and maxDataPoints, sent as
// <url>/api/v1/query_range or /api/v1/query (POST form unless
// jsonData.httpMethod is GET, as the real plugin does), answered with one
// Time/Value frame per series.
import { ApiError } from "../../../../lib/errors.ts";
import { sendToDataSource } from "../datasources/index.ts";
import { applyLegend, seriesFrame, type Frame, type FrameMeta } from "./data-frames.ts";
import { readPromAnswer, seriesOf, type PromData } from "./prom-response.ts";
import { field, type QueryContext } from "./query-context.ts";
import { goDuration, interpolate, prometheusStep, prometheusVariables } from "./query-step.ts";

/** how the real plugin names a series without a legend: name{a="1", b="2"} */
function metricName(labels: Record<string, string>): string {
  const { __name__: name = "", ...rest } = labels;
  const parts = Object.keys(rest).sort().map((k) => `${k}=${JSON.stringify(rest[k])}`);
  if (!parts.length) return name || "{}";
  return `${name}{${parts.join(", ")}}`;
}

/** the real plugin's getName: legendFormat templating, "__auto" leaving labelled series to the front end */
function seriesName(expr: string, legendFormat: string | undefined, labels: Record<string, string>): string {
  let legend = metricName(labels);
  if (legendFormat === "__auto") {
    if (Object.keys(labels).length) legend = "";
  } else if (legendFormat) {
    legend = applyLegend(legendFormat, labels);
  }
  return legend === "{}" ? expr : legend;
}

const seconds = (ms: number) => String(ms / 1000);

interface Run {
  expr: string;
  legendFormat: string | undefined;
  stepMs: number;
}

function framesOf(q: QueryContext, run: Run, data: PromData): Frame[] {
  const meta = (): FrameMeta => ({
    type: data.resultType === "scalar" ? "numeric-multi" : "timeseries-multi",
    typeVersion: [0, 1],
    custom: { resultType: data.resultType },
    ...(data.warnings.length ? { notices: data.warnings.map((text) => ({ severity: "warning", text })) } : {}),
  });
  const frames = seriesOf(data).map((s) => {
    const name = seriesName(run.expr, run.legendFormat, s.labels);
    return seriesFrame(q.refId, s.points, s.labels, {
      ...(name ? { name, displayName: name } : {}),
      intervalMs: run.stepMs,
      meta: meta(),
    });
  });
  // an empty result still carries the executed query (the real plugin adds an empty frame for it)
  if (!frames.length) frames.push({ refId: q.refId, meta: meta(), fields: [] });
  frames[0]!.meta = { ...frames[0]!.meta, executedQueryString: `Expr: ${run.expr}\nStep: ${goDuration(run.stepMs)}` };
  return frames;
}

async function send(q: QueryContext, path: string, params: URLSearchParams): Promise<PromData> {
  const method = q.ds.jsonData?.httpMethod === "GET" ? "GET" : "POST";
  const res = await sendToDataSource(q.ds, q.credentials, {
    method,
    path,
    ...(method === "GET"
      ? { query: params }
      : { body: params.toString(), headers: new Headers({ "content-type": "application/x-www-form-urlencoded" }) }),
  });
  return readPromAnswer(res, q.credentials.secrets);
}

export async function queryPrometheus(q: QueryContext): Promise<Frame[]> {
  const { model } = q;
  const rawExpr = field(model, "expr", "string") ?? "";
  if (!rawExpr.trim()) throw new ApiError(400, "bad request data: expr is empty: write a PromQL query");
  const instant = field(model, "instant", "boolean") ?? false;
  const range = (field(model, "range", "boolean") ?? false) || !instant;
  const interval = field(model, "interval", "string");
  const scrape = q.ds.jsonData?.timeInterval;
  const stepInput = {
    fromMs: q.fromMs, toMs: q.toMs, interval, intervalMs: q.intervalMs, maxDataPoints: q.maxDataPoints,
    scrapeInterval: typeof scrape === "string" ? scrape : undefined,
  };
  const stepMs = prometheusStep(stepInput);
  const expr = interpolate(rawExpr, prometheusVariables(stepInput, stepMs));
  const run: Run = { expr, legendFormat: field(model, "legendFormat", "string"), stepMs };
  const frames: Frame[] = [];
  if (range) {
    // start and end aligned down to the step, as the real plugin does (stable points while time moves)
    const align = (t: number) => Math.floor(t / stepMs) * stepMs;
    const params = new URLSearchParams({ query: expr, start: seconds(align(q.fromMs)), end: seconds(align(q.toMs)), step: seconds(stepMs) });
    frames.push(...framesOf(q, run, await send(q, "/api/v1/query_range", params)));
  }
  if (instant) {
    const params = new URLSearchParams({ query: expr, time: seconds(q.toMs) });
    frames.push(...framesOf(q, run, await send(q, "/api/v1/query", params)));
  }
  return frames;
}
