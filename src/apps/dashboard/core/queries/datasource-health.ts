// GET /api/datasources/uid/:uid/health: asks the data source a harmless
// question with its credentials. Prometheus runs the instant query 1+1 as the
// real plugin's CheckHealth does; the log store is asked for its labels (the
// cheapest call that needs the tenant, so a missing one shows here). Messages
// are the real plugins' (pkg/promlib/healthcheck.go, pkg/tsdb/loki/healthcheck.go).
import { ApiError } from "../../../../lib/errors.ts";
import { credentialsOf, sendToDataSource } from "../datasources/index.ts";
import type { DataSourceRecord } from "../datasources/index.ts";
import type { DataSourceDeps } from "../datasources/index.ts";
import { isQueryable } from "../datasources/index.ts";
import { logApiPrefix } from "../datasources/index.ts";
import { readAnswerText, upstreamErrorText } from "./prom-response.ts";
import { queryPrometheus } from "./query-prometheus.ts";

export interface HealthResult {
  status: "OK" | "ERROR";
  message: string;
}

const PROMETHEUS_OK = "Successfully queried the Prometheus API.";
const PROMETHEUS_ERROR = "There was an error returned querying the Prometheus API.";
const LOKI_OK = "Successfully queried the Loki API.";
const LOKI_ERROR = "There was an error returned querying the Loki API";

async function checkPrometheus(deps: DataSourceDeps, ds: DataSourceRecord): Promise<HealthResult> {
  try {
    const credentials = await credentialsOf(deps, ds);
    // the real check's query: 1+1 at 4 s after the epoch (no data needed)
    await queryPrometheus({
      refId: "__healthcheck__", model: { expr: "1+1", instant: true }, fromMs: 1000, toMs: 4000, intervalMs: 0, maxDataPoints: 100, ds, credentials,
    });
    return { status: "OK", message: PROMETHEUS_OK };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { status: "ERROR", message: `${err.message} - ${PROMETHEUS_ERROR}` };
  }
}

async function checkLoki(deps: DataSourceDeps, ds: DataSourceRecord): Promise<HealthResult> {
  try {
    const credentials = await credentialsOf(deps, ds);
    const res = await sendToDataSource(ds, credentials, { method: "GET", path: `${logApiPrefix(ds)}/labels` });
    if (!res.ok) {
      return { status: "ERROR", message: `${LOKI_ERROR}: ${upstreamErrorText(res, await readAnswerText(res), credentials.secrets)}` };
    }
    const text = await readAnswerText(res);
    let body: { status?: unknown } | undefined;
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = undefined;
    }
    if (body?.status !== "success") return { status: "ERROR", message: `${LOKI_ERROR}: the answer is not a log store API answer` };
    return { status: "OK", message: LOKI_OK };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { status: "ERROR", message: `${LOKI_ERROR}: ${err.message}` };
  }
}

export async function checkDataSourceHealth(deps: DataSourceDeps, ds: DataSourceRecord): Promise<HealthResult> {
  if (!isQueryable(ds.type)) {
    return { status: "ERROR", message: `health checks are not supported for data sources of type "${ds.type}": Outpost queries only loki and prometheus data sources` };
  }
  return ds.type === "prometheus" ? checkPrometheus(deps, ds) : checkLoki(deps, ds);
}
