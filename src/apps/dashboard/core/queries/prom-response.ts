// Reading what a Prometheus-style API answered (the metrics store, and the
// log store's metric queries): the series of a matrix, vector or scalar, the
// warnings, and an error message the caller can act on. Both query plugins
// and the health check read answers through here.
import { ApiError } from "../../../../lib/errors.ts";
import { readTextCapped } from "../../../../lib/http/capped-body.ts";
import { sampleValue, secondsToMs } from "./data-frames.ts";
import { redactText } from "../secrets/index.ts";

export interface Series {
  labels: Record<string, string>;
  points: Array<[number, number]>;
}

export interface PromData {
  resultType: string;
  result: unknown;
  warnings: string[];
}

const MAX_ERROR_TEXT = 1000;

/** the store asks for a tenant: say where to set one */
function tenantHint(status: number, text: string): string {
  return status === 401 && /no org id/i.test(text)
    ? ". The store is multi-tenant: set the tenant (jsonData.tenantId, sent as X-Scope-OrgID) on the data source"
    : "";
}

/** what went wrong upstream, in the store's own words, with no secret in it */
export function upstreamErrorText(res: Response, text: string, secrets: readonly string[]): string {
  let message = text.trim().slice(0, MAX_ERROR_TEXT);
  try {
    const body = JSON.parse(text) as { error?: unknown; errorType?: unknown; message?: unknown };
    if (typeof body.error === "string") message = body.errorType ? `${String(body.errorType)}: ${body.error}` : body.error;
    else if (typeof body.message === "string") message = body.message;
  } catch {
    // plain text, as the real stores send most errors
  }
  if (!message) message = `${res.status} ${res.statusText}`.trim();
  return redactText(message + tenantHint(res.status, message), secrets);
}

/** the failure of an answer that is not a success, as a per-query error */
export function upstreamFailure(res: Response, text: string, secrets: readonly string[]): ApiError {
  return new ApiError(res.status >= 400 ? res.status : 500, upstreamErrorText(res, text, secrets));
}

/**
 * The largest answer read from a data source, after fetch has decompressed it:
 * a small gzip bomb from a hostile URL must not grow memory by gigabytes
 * (issue 16 #5). The proxy relays answers as streams and needs no cap.
 */
export const DATA_SOURCE_ANSWER_LIMIT = 100 * 1024 * 1024;

/** an answer's text, refused (502) past DATA_SOURCE_ANSWER_LIMIT decoded bytes */
export function readAnswerText(res: Response): Promise<string> {
  return readTextCapped(res, DATA_SOURCE_ANSWER_LIMIT, () =>
    new ApiError(502, `the data source's answer is larger than ${DATA_SOURCE_ANSWER_LIMIT} bytes (decompressed)`));
}

/** the data of a {status: "success", data} answer; anything else throws the upstream's error */
export async function readPromAnswer(res: Response, secrets: readonly string[]): Promise<PromData> {
  const text = await readAnswerText(res);
  let body: { status?: unknown; data?: { resultType?: unknown; result?: unknown }; warnings?: unknown; infos?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    if (!res.ok) throw upstreamFailure(res, text, secrets);
    throw new ApiError(500, "the data source answered something that is not JSON");
  }
  if (!res.ok || body.status === "error") throw upstreamFailure(res, text, secrets);
  if (typeof body.data?.resultType !== "string") throw new ApiError(500, "the data source's answer has no resultType");
  const notes = [body.warnings, body.infos].flatMap((list) => (Array.isArray(list) ? list.filter((w): w is string => typeof w === "string") : []));
  return { resultType: body.data.resultType, result: body.data.result, warnings: notes.map((w) => redactText(w, secrets)) };
}

const labelsOf = (metric: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries((metric ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]));

const point = (pair: unknown): [number, number] => {
  const [t, v] = pair as [unknown, unknown];
  return [secondsToMs(t), sampleValue(v)];
};

/** the series of a matrix, vector or scalar result, in the order the store sent them */
export function seriesOf(data: PromData): Series[] {
  const list = Array.isArray(data.result) ? (data.result as Array<Record<string, unknown>>) : [];
  switch (data.resultType) {
    case "matrix":
      return list.map((s) => ({ labels: labelsOf(s.metric), points: ((s.values as unknown[]) ?? []).map(point) }));
    case "vector":
      return list.map((s) => ({ labels: labelsOf(s.metric), points: s.value ? [point(s.value)] : [] }));
    case "scalar":
      return Array.isArray(data.result) ? [{ labels: {}, points: [point(data.result)] }] : [];
    default:
      throw new ApiError(500, `unknown result type: ${data.resultType}`);
  }
}
