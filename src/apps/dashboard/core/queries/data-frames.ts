// Data frames as the real product's /api/ds/query sends them (the plugin
// SDK's JSON): a schema (name, refId, meta, fields with type, typeInfo,
// labels, config) and columnar data, times as epoch milliseconds. JSON has
// no NaN or infinities: such values are written as null and listed in
// data.entities, field by field ({NaN: [rows], Inf: [rows], NegInf: [rows]}).

export type FieldType = "time" | "number" | "string" | "boolean" | "other";

export interface Field {
  name: string;
  type: FieldType;
  /** the Go type of the column: time.Time, float64, string, json.RawMessage, ... */
  frameType: string;
  nullable?: boolean;
  labels?: Record<string, string>;
  config?: Record<string, unknown>;
  values: unknown[];
}

export interface FrameMeta {
  type?: string;
  typeVersion?: [number, number];
  custom?: Record<string, unknown>;
  executedQueryString?: string;
  notices?: Array<{ severity: string; text: string }>;
}

export interface Frame {
  name?: string;
  refId: string;
  meta?: FrameMeta;
  fields: Field[];
}

type Entities = { NaN?: number[]; Inf?: number[]; NegInf?: number[] };

function encodeColumn(values: unknown[]): { values: unknown[]; entities: Entities | null } {
  let entities: Entities | null = null;
  const out = values.map((v, row) => {
    if (typeof v !== "number" || Number.isFinite(v)) return v;
    const key = Number.isNaN(v) ? "NaN" : v > 0 ? "Inf" : "NegInf";
    entities ??= {};
    (entities[key] ??= []).push(row);
    return null;
  });
  return { values: out, entities };
}

export function frameJson(frame: Frame) {
  const columns = frame.fields.map((f) => encodeColumn(f.values));
  const entities = columns.map((c) => c.entities);
  return {
    schema: {
      ...(frame.name ? { name: frame.name } : {}),
      refId: frame.refId,
      ...(frame.meta ? { meta: frame.meta } : {}),
      fields: frame.fields.map((f) => ({
        name: f.name,
        type: f.type,
        typeInfo: { frame: f.frameType, ...(f.nullable ? { nullable: true } : {}) },
        ...(f.labels && Object.keys(f.labels).length ? { labels: f.labels } : {}),
        ...(f.config && Object.keys(f.config).length ? { config: f.config } : {}),
      })),
    },
    data: {
      values: columns.map((c) => c.values),
      ...(entities.some((e) => e !== null) ? { entities } : {}),
    },
  };
}

/** a Prometheus-style sample value: "NaN", "+Inf" and "-Inf" included */
export function sampleValue(text: unknown): number {
  if (text === "+Inf" || text === "Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (text === "NaN") return NaN;
  const n = typeof text === "number" ? text : Number(text);
  return typeof text === "string" && text.trim() === "" ? NaN : n;
}

/** float seconds (Prometheus times) to epoch milliseconds */
export const secondsToMs = (seconds: unknown) => Math.round(Number(seconds) * 1000);

/** the two-column frame of one series: Time and Value with the series' labels */
export function seriesFrame(
  refId: string,
  points: Array<[number, number]>,
  labels: Record<string, string>,
  options: { name?: string; displayName?: string; intervalMs?: number; meta: FrameMeta },
): Frame {
  return {
    ...(options.name ? { name: options.name } : {}),
    refId,
    meta: options.meta,
    fields: [
      {
        name: "Time", type: "time", frameType: "time.Time", values: points.map((p) => p[0]),
        ...(options.intervalMs ? { config: { interval: options.intervalMs } } : {}),
      },
      {
        name: "Value", type: "number", frameType: "float64", labels, values: points.map((p) => p[1]),
        ...(options.displayName !== undefined ? { config: { displayNameFromDS: options.displayName } } : {}),
      },
    ],
  };
}

const LEGEND_VARIABLE = /\{\{\s*(.+?)\s*\}\}/g;

/** legendFormat with each {{label}} replaced by the series' value (nothing when it has none) */
export function applyLegend(format: string, labels: Record<string, string>): string {
  return format.replace(LEGEND_VARIABLE, (_, name: string) => labels[name] ?? "");
}

/** {a="1", b="2"}: sorted, Go-quoted, as the real product names a series */
export function labelsText(labels: Record<string, string>): string {
  return `{${Object.keys(labels).sort().map((k) => `${k}=${JSON.stringify(labels[k])}`).join(", ")}}`;
}
