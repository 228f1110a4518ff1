// Writes through the three APIs (a dashboard, a user, a data source with a
// sealed secret, an annotation; log lines; samples) and reads them back as a
// set of answers to compare: the backup tests compare a server restored from
// a backup with the original, the upgrade test a data dir an older Outpost
// wrote with what that Outpost answered. Plain fetch: scripts/ uses it too.
import { encodeWriteRequest } from "../../src/apps/metrics/core/remote-write.ts";

export const ADMIN_AUTH = `Basic ${btoa("admin:admin")}`;
export const TENANT = "backup-tenant";

export interface Urls {
  dashboard: string;
  logs: string;
  metrics: string;
}

async function must(res: Promise<Response>, what: string): Promise<unknown> {
  const r = await res;
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

const json = (method: string, body: unknown, auth = ADMIN_AUTH): RequestInit => ({
  method,
  headers: { Authorization: auth, "Content-Type": "application/json", Accept: "application/json" },
  body: JSON.stringify(body),
});

/** dashboard objects named after `tag` */
export async function writeDashboard(base: string, tag: string): Promise<void> {
  await must(fetch(`${base}/api/dashboards/db`, json("POST", { dashboard: { uid: `dash-${tag}`, title: `Dash ${tag}`, panels: [], tags: [tag] }, overwrite: false })), `dashboard ${tag}`);
  await must(fetch(`${base}/api/admin/users`, json("POST", { login: `user-${tag}`, email: `user-${tag}@example.test`, name: `User ${tag}`, password: `pw-${tag}-long-enough` })), `user ${tag}`);
  await must(
    fetch(`${base}/api/datasources`, json("POST", {
      name: `ds-${tag}`, uid: `ds-${tag}`, type: "prometheus", access: "proxy", url: "http://127.0.0.1:9/",
      jsonData: { httpHeaderName1: "X-Secret" }, secureJsonData: { httpHeaderValue1: `secret-${tag}` },
    })),
    `data source ${tag}`,
  );
  await must(fetch(`${base}/api/annotations`, json("POST", { dashboardUID: `dash-${tag}`, time: 1_700_000_000_000, text: `note ${tag}`, tags: [tag] })), `annotation ${tag}`);
}

/** `n` log lines of stream {job="<tag>"} from t0 (ms), 1 ms apart */
export async function writeLogs(base: string, tag: string, t0: number, n = 50): Promise<void> {
  const values = Array.from({ length: n }, (_, i) => [`${BigInt(t0 + i) * 1_000_000n}`, `line ${i} of ${tag}`]);
  const body = { streams: [{ stream: { job: tag, source: "backup-test" }, values }] };
  await must(fetch(`${base}/svc/api/v1/push`, { method: "POST", headers: { "X-Scope-OrgID": TENANT, "Content-Type": "application/json" }, body: JSON.stringify(body) }), `log push ${tag}`);
}

/** `n` samples of backup_test_value{tag="<tag>"} from t0 (ms), 15 s apart */
export async function writeSamples(base: string, tag: string, t0: number, n = 20): Promise<void> {
  const body = encodeWriteRequest({
    timeseries: [{
      labels: [{ name: "__name__", value: "backup_test_value" }, { name: "tag", value: tag }],
      samples: Array.from({ length: n }, (_, i) => ({ timestampMs: t0 + i * 15_000, value: i })),
    }],
  });
  await must(
    fetch(`${base}/api/v1/push`, {
      method: "POST",
      headers: { "X-Scope-OrgID": TENANT, "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy", "X-Prometheus-Remote-Write-Version": "0.1.0" },
      body: body as BodyInit,
    }),
    `remote write ${tag}`,
  );
}

export async function writeAll(urls: Urls, tag: string, t0: number): Promise<void> {
  await writeDashboard(urls.dashboard, tag);
  await writeLogs(urls.logs, tag, t0);
  await writeSamples(urls.metrics, tag, t0);
}

const get = (url: string, headers: Record<string, string>) => must(fetch(url, { headers: { Accept: "application/json", ...headers } }), url);

/**
 * The answers of a set of reads over [t0 - 1h, t0 + 1h]: what a restored (or
 * upgraded) server must answer exactly as the original did. Fields that
 * change by themselves (the moment of the read) are left out.
 */
export async function readAll(urls: Urls, t0: number): Promise<Record<string, unknown>> {
  const auth = { Authorization: ADMIN_AUTH };
  const tenant = { "X-Scope-OrgID": TENANT };
  const from = t0 - 3_600_000;
  const to = t0 + 3_600_000;
  const users = (await get(`${urls.dashboard}/api/users?perpage=1000`, auth)) as Array<Record<string, unknown>>;
  const out: Record<string, unknown> = {
    search: await get(`${urls.dashboard}/api/search?type=dash-db`, auth),
    // lastSeenAt and its age move with the clock
    users: users.map(({ lastSeenAt: _a, lastSeenAtAge: _b, ...u }) => u),
    datasources: await get(`${urls.dashboard}/api/datasources`, auth),
    annotations: await get(`${urls.dashboard}/api/annotations?from=0&to=${2_000_000_000_000}`, auth),
    logLabels: await get(`${urls.logs}/svc/api/v1/labels?start=${from}000000&end=${to}000000`, tenant),
    logLines: await get(`${urls.logs}/svc/api/v1/query_range?query=${encodeURIComponent('{source="backup-test"}')}&start=${from}000000&end=${to}000000&limit=5000&direction=forward`, tenant),
    series: await get(`${urls.metrics}/prometheus/api/v1/series?match[]=backup_test_value&start=${from / 1000}&end=${to / 1000}`, tenant),
    samples: await get(`${urls.metrics}/prometheus/api/v1/query_range?query=backup_test_value&start=${from / 1000}&end=${to / 1000}&step=15`, tenant),
  };
  for (const hit of (out.search as Array<{ uid: string }>) ?? []) {
    const d = (await get(`${urls.dashboard}/api/dashboards/uid/${hit.uid}`, auth)) as { meta?: Record<string, unknown> };
    out[`dashboard ${hit.uid}`] = d;
  }
  // the log query's statistics (timings) change at every read
  const lines = out.logLines as { data?: { stats?: unknown } };
  if (lines.data) delete lines.data.stats;
  return out;
}
