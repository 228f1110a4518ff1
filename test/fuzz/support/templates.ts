// Valid bodies of the dashboard's main write routes; the fuzz test replaces
// one field (or adds one) with a malformed value, so the request reaches the
// validation and storage behind the first type check.
import type { Rng } from "./prng.ts";
import { jsonText, LONG_100K } from "./values.ts";

const resource = (spec: Record<string, unknown>) => ({ metadata: { name: "fz-x", labels: { a: "b" }, annotations: {} }, spec });

export const TEMPLATES: Record<string, unknown> = {
  "POST /api/teams": { name: "fz-team", email: "t@example.test" },
  "POST /api/orgs": { name: "fz-org" },
  "POST /api/serviceaccounts": { name: "fz-sa", role: "Viewer", isDisabled: false },
  "POST /api/serviceaccounts/{id}/tokens": { name: "fz-token", secondsToLive: 3600 },
  "PATCH /api/serviceaccounts/{id}": { name: "fz-sa2", role: "Editor" },
  "POST /api/admin/users": { login: "fz-user", email: "u@example.test", name: "U", password: "pw-secret-1", OrgId: 1 },
  "POST /api/orgs/{orgId}/users": { loginOrEmail: "admin", role: "Viewer" },
  "PATCH /api/orgs/{orgId}/users/{userId}": { role: "Viewer" },
  "POST /api/teams/{id}/members": { userId: 1 },
  "POST /api/datasources": { name: "fz-ds", type: "prometheus", url: "http://127.0.0.1:1", access: "proxy", jsonData: { httpMethod: "POST" } },
  "PUT /api/datasources/uid/{uid}": { name: "fz-ds", type: "loki", url: "http://127.0.0.1:1", access: "proxy" },
  "PUT /api/datasources/{id}": { name: "fz-ds", type: "loki", url: "http://127.0.0.1:1", access: "proxy" },
  "POST /api/ds/query": { from: "now-1h", to: "now", queries: [{ refId: "A", datasource: { uid: "nope" }, expr: "up", intervalMs: 1000, maxDataPoints: 100 }] },
  "POST /api/annotations": { text: "fz", time: 1700000000000, timeEnd: 1700000001000, tags: ["a"], dashboardUID: "x", panelId: 1 },
  "PUT /api/annotations/{id}": { text: "fz", time: 1700000000000, tags: ["a"] },
  "PATCH /api/annotations/{id}": { text: "fz" },
  "POST /api/annotations/graphite": { what: "fz", tags: ["a"], when: 1700000000, data: "d" },
  "POST /api/annotations/mass-delete": { dashboardUID: "x", panelId: 1 },
  "POST /api/library-elements": { name: "fz-el", kind: 1, model: { type: "text" } },
  "PATCH /api/library-elements/{uid}": { name: "fz-el", kind: 1, version: 1, model: {} },
  "PUT /api/user/preferences": { theme: "dark", timezone: "utc", weekStart: "monday", homeDashboardUID: "" },
  "PATCH /api/org/preferences": { theme: "light" },
  "POST /login": { user: "nobody", password: "wrong" },
  "POST /api/v1/provisioning/alert-rules": { title: "fz", ruleGroup: "g", folderUID: "f", condition: "A", for: "5m", noDataState: "OK", execErrState: "Error", data: [{ refId: "A", datasourceUid: "x", model: { expr: "up" }, relativeTimeRange: { from: 600, to: 0 } }] },
  "PUT /api/v1/provisioning/alert-rules/{uid}": { title: "fz", ruleGroup: "g", folderUID: "fz-x", condition: "A", for: "5m", notification_settings: { receiver: "grafana-default-email" }, data: [{ refId: "A", model: {} }] },
  "PUT /api/v1/provisioning/folder/{folderUid}/rule-groups/{group}": { interval: 60, rules: [{ title: "fz", condition: "A", data: [{ refId: "A", model: {} }], labels: { a: "b" } }] },
  "POST /api/v1/provisioning/contact-points": { name: "fz", type: "webhook", settings: { url: "http://127.0.0.1:1", password: "pw", tlsConfig: { clientKey: "k" } }, disableResolveMessage: false },
  "PUT /api/v1/provisioning/contact-points/{uid}": { name: "fz", type: "slack", settings: { recipient: "#x", token: "[REDACTED]" } },
  "PUT /api/v1/provisioning/policies": { receiver: "grafana-default-email", group_by: ["alertname"], routes: [{ receiver: "", object_matchers: [["a", "=", "b"]], group_wait: "30s", mute_time_intervals: [] }] },
  "POST /api/v1/provisioning/mute-timings": { name: "fz", time_intervals: [{ times: [{ start_time: "00:00", end_time: "06:00" }], weekdays: ["monday:friday"], days_of_month: ["1:5", "-1"], months: ["1:3"], years: ["2030"], location: "UTC" }] },
  "PUT /api/v1/provisioning/mute-timings/{name}": { name: "fz2", time_intervals: [{ weekdays: ["saturday"] }], version: "" },
  "PUT /api/v1/provisioning/templates/{name}": { template: "{{ define \"fz\" }}{{ .Status }}{{ end }}", version: "" },
  "POST /apis/folder.svc.app/v1/namespaces/{namespace}/folders": resource({ title: "fz" }),
  "PUT /apis/folder.svc.app/v1/namespaces/{namespace}/folders/{name}": resource({ title: "fz" }),
  "POST /apis/dashboard.svc.app/v1/namespaces/{namespace}/dashboards": resource({ title: "fz", panels: [], schemaVersion: 39 }),
  "PUT /apis/dashboard.svc.app/v1/namespaces/{namespace}/dashboards/{name}": resource({ title: "fz", panels: [] }),
  "POST /apis/playlist.svc.app/v1/namespaces/{namespace}/playlists": resource({ title: "fz", interval: "5m", items: [{ type: "dashboard_by_uid", value: "x" }] }),
  "POST /apis/secret.svc.app/v1beta1/namespaces/{namespace}/securevalues": resource({ description: "fz", value: "s3cret" }),
};

/** 1 MiB that does not compress: what a database index row cannot hold */
export const INCOMPRESSIBLE_1M = (() => {
  let s = "";
  let x = 7;
  for (let i = 0; i < 1 << 20; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    s += String.fromCharCode(97 + (x % 26));
  }
  return s;
})();

/** the template with one field set to a malformed value */
export function mutate(rng: Rng, template: unknown): string {
  const copy = JSON.parse(JSON.stringify(template)) as unknown;
  const slots: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach((x, i) => { slots.push({ parent: v, key: i }); walk(x); });
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) { slots.push({ parent: v as Record<string, unknown>, key: k }); walk(x); }
  };
  walk(copy);
  const MARK = "\u0001FUZZ\u0001";
  // names and titles are where length and text limits matter most
  const named = slots.filter((x) => ["name", "title", "login", "email", "text"].includes(String(x.key)));
  const slot = named.length > 0 && rng.chance(0.4) ? rng.pick(named) : rng.pick(slots);
  const r = rng.next();
  // a name or title gets a long value half the time: length limits live there
  const long = named.includes(slot) ? 0.5 : 0.25;
  let replacement: string;
  if (r < long * 0.45) replacement = JSON.stringify(INCOMPRESSIBLE_1M);
  else if (r < long * 0.7) replacement = JSON.stringify(LONG_100K);
  else if (r < long) replacement = JSON.stringify("x".repeat(9_000));
  else replacement = jsonText(rng);
  if (rng.chance(0.15) && !Array.isArray(slot.parent)) (slot.parent as Record<string, unknown>)[`fz${rng.int(9)}`] = MARK;
  else (slot.parent as Record<string | number, unknown>)[slot.key] = MARK;
  // fresh names, so a mutation elsewhere is not just "name taken"
  const suffix = rng.int(1e9);
  return JSON.stringify(copy).replace(/"fz-([a-z]+)"/g, `"fz-$1-${suffix}"`).replace(JSON.stringify(MARK), replacement);
}
