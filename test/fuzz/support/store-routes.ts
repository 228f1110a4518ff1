// Every endpoint of the log store and the metrics store, as their route files
// register them (src/apps/logstore/routes/*.ts, src/apps/metrics/routes/*.ts,
// lib/http/ready.ts). A route added there belongs here too.
import type { Route } from "./requests.ts";

const both = (service: Route["service"], path: string): Route[] => [{ service, method: "GET", path }, { service, method: "POST", path }];
const get = (service: Route["service"], path: string): Route => ({ service, method: "GET", path });

export const LOG_STORE_ROUTES: Route[] = [
  { service: "logs", method: "POST", path: "/svc/api/v1/push" },
  { service: "logs", method: "POST", path: "/api/prom/push" },
  { service: "logs", method: "POST", path: "/otlp/v1/logs" },
  ...both("logs", "/svc/api/v1/labels"),
  get("logs", "/svc/api/v1/label/:name/values"),
  ...both("logs", "/svc/api/v1/series"),
  ...both("logs", "/svc/api/v1/query_range"),
  ...both("logs", "/svc/api/v1/query"),
  ...both("logs", "/svc/api/v1/index/stats"),
  get("logs", "/svc/api/v1/status/buildinfo"),
  get("logs", "/metrics"),
  get("logs", "/config"),
  get("logs", "/ready"),
  get("logs", "/distributor/all_user_stats"),
  // the delete API (issue 25)
  { service: "logs", method: "POST", path: "/svc/api/v1/delete" },
  { service: "logs", method: "PUT", path: "/svc/api/v1/delete" },
  get("logs", "/svc/api/v1/delete"),
  { service: "logs", method: "DELETE", path: "/svc/api/v1/delete" },
];

const RULES = ["/prometheus/config/v1/rules", "/api/v1/rules"].flatMap((base): Route[] => [
  get("metrics", base),
  get("metrics", `${base}/:namespace`),
  get("metrics", `${base}/:namespace/:group`),
  { service: "metrics", method: "POST", path: `${base}/:namespace` },
  { service: "metrics", method: "DELETE", path: `${base}/:namespace/:group` },
  { service: "metrics", method: "DELETE", path: `${base}/:namespace` },
]);

export const METRICS_STORE_ROUTES: Route[] = [
  { service: "metrics", method: "POST", path: "/api/v1/push" },
  { service: "metrics", method: "POST", path: "/api/prom/push" },
  { service: "metrics", method: "POST", path: "/otlp/v1/metrics" },
  ...["/prometheus/api/v1", "/api/v1"].flatMap((p): Route[] => [
    ...both("metrics", `${p}/query`),
    ...both("metrics", `${p}/query_range`),
    ...both("metrics", `${p}/series`),
    ...both("metrics", `${p}/labels`),
    get("metrics", `${p}/label/:name/values`),
    get("metrics", `${p}/metadata`),
    ...both("metrics", `${p}/query_exemplars`),
    get("metrics", `${p}/status/buildinfo`),
    get("metrics", `${p}/status/config`),
    get("metrics", `${p}/status/flags`),
  ]),
  ...RULES,
  get("metrics", "/prometheus/api/v1/rules"),
  get("metrics", "/prometheus/api/v1/alerts"),
  get("metrics", "/admin/api/v2/tenants"),
  { service: "metrics", method: "POST", path: "/admin/api/v2/tenants" },
  get("metrics", "/admin/api/v2/tenants/:name"),
  { service: "metrics", method: "PUT", path: "/admin/api/v2/tenants/:name" },
  { service: "metrics", method: "DELETE", path: "/admin/api/v2/tenants/:name" },
  get("metrics", "/api/v1/user_limits"),
  get("metrics", "/api/v1/user_stats"),
  get("metrics", "/distributor/all_user_stats"),
  get("metrics", "/runtime_config"),
  get("metrics", "/config"),
  get("metrics", "/metrics"),
  get("metrics", "/ready"),
  // Prometheus's TSDB admin API for deleting series (issue 25)
  ...["/prometheus/api/v1", "/api/v1"].flatMap((p) =>
    ["delete_series", "clean_tombstones"].flatMap((op): Route[] => ["POST", "PUT"].map((method) => ({ service: "metrics", method, path: `${p}/admin/tsdb/${op}` }))),
  ),
];

/** query and rule expressions: valid, broken, and the kinds the issue names (kept small: this is not the attack test) */
export const EXPRESSIONS: readonly string[] = [
  '{job="fz"}', '{job="fz"} |= "a"', '{job="fz"} | json | line_format "{{.a}}"', '{job="fz"} | line_format "{{"', '{job="fz"} | line_format "{{ .a | nope }}"',
  '{job="fz"} | logfmt | label_format x="{{"', 'sum by (job) (count_over_time({job="fz"}[1m]))', 'rate({job="fz"}[9999999999999999999y])',
  '{job="fz"} | regexp "(?P<a>"', '{job="fz"} |~ "(?i)a"', '{job=~"f.*"} | pattern "<_> <x>"', '{job="fz"} | unwrap x', "{}", "{job=}",
  "up", "fz_m", "fz_m[5m]", "rate(fz_m[5m])", "fz_m[9999999999999999999y]", "fz_m[1y]", "sum(fz_m) by (job)", 'label_replace(fz_m, "a", "$1", "job", "(")',
  "histogram_quantile(0.9, fz_m)", "fz_m offset -999999999y", "fz_m @ 99999999999999999999", "1/0", "vector(1)", "topk(1e309, fz_m)",
  'quantile_over_time(NaN, fz_m[1m])', "absent(nope)", "fz_m[1m:1s]", "count_over_time(vector(1)[1h:1m])", "sort_desc(", ")", "fz_m{", '{__name__=~".*"}',
];
