// The ruler's HTTP API (reference §9, Mimir's ruler/api.go):
// - configuration, YAML in and out, plain-text errors:
//   <p>/config/v1/rules[/{namespace}[/{group}]] and the legacy /api/v1/rules...
//   (path segments percent-decoded, so %2F stands for "/");
// - status, Prometheus JSON: <p>/api/v1/rules (filters type, rule_name[],
//   rule_group[], file[], exclude_alerts) and <p>/api/v1/alerts.
import type { Context, Hono } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import type { Ruler, RulesFilter } from "../core/rules/evaluator.ts";
import { namespacesToYaml, ruleGroupToYaml } from "../core/rules/group-format.ts";
import { tenantOf, type TenantGate } from "./tenant.ts";

const PREFIXES = ["/prometheus/config/v1/rules", "/api/v1/rules"];

/** the body of every accepted change: Mimir's response struct has no omitempty */
const ACCEPTED = '{"status":"success","data":null,"errorType":"","error":""}';

const yaml = (c: Context, text: string) => c.body(text, 200, { "Content-Type": "application/yaml" });
const accepted = (c: Context) => c.body(ACCEPTED, 202, { "Content-Type": "application/json" });
const json = (c: Context, status: 200 | 400, body: unknown) => c.body(JSON.stringify(body), status, { "Content-Type": "application/json" });
const badData = (c: Context, error: string) => json(c, 400, { status: "error", data: null, errorType: "bad_data", error });

/** a repeatable query parameter, spelled with or without [] (Prometheus uses rule_name[], Mimir rule_name) */
const repeated = (c: Context, name: string) => [...(c.req.queries(name) ?? []), ...(c.req.queries(`${name}[]`) ?? [])];

export function registerRuleRoutes(app: Hono, ruler: Ruler, gate: TenantGate): void {
  for (const base of PREFIXES) {
    app.get(base, (c) => yaml(c, namespacesToYaml(ruler.listGroups(tenantOf(c, gate, "rules:read")))));

    app.get(`${base}/:namespace`, (c) => yaml(c, namespacesToYaml(ruler.listGroups(tenantOf(c, gate, "rules:read"), c.req.param("namespace")))));

    app.get(`${base}/:namespace/:group`, (c) => {
      const group = ruler.getGroup(tenantOf(c, gate, "rules:read"), c.req.param("namespace"), c.req.param("group"));
      if (!group) throw new ApiError(404, "group does not exist");
      return yaml(c, ruleGroupToYaml(group));
    });

    app.post(`${base}/:namespace`, async (c) => {
      const tenant = tenantOf(c, gate, "rules:write");
      await ruler.setGroup(tenant, c.req.param("namespace"), await c.req.text());
      return accepted(c);
    });

    app.delete(`${base}/:namespace/:group`, async (c) => {
      const tenant = tenantOf(c, gate, "rules:write");
      if (!(await ruler.deleteGroup(tenant, c.req.param("namespace"), c.req.param("group")))) throw new ApiError(404, "group does not exist");
      return accepted(c);
    });

    app.delete(`${base}/:namespace`, async (c) => {
      const tenant = tenantOf(c, gate, "rules:write");
      if (!(await ruler.deleteNamespace(tenant, c.req.param("namespace")))) throw new ApiError(404, "group namespace does not exist");
      return accepted(c);
    });
  }

  app.get("/prometheus/api/v1/rules", (c) => {
    const tenant = tenantOf(c, gate, "rules:read");
    const filter: RulesFilter = { ruleNames: repeated(c, "rule_name"), ruleGroups: repeated(c, "rule_group"), files: repeated(c, "file") };
    const type = (c.req.query("type") ?? "").toLowerCase();
    if (type === "alert" || type === "record") filter.type = type;
    else if (type !== "") return badData(c, `not supported value ${JSON.stringify(type)}`);
    const exclude = (c.req.query("exclude_alerts") ?? "").toLowerCase();
    if (["1", "t", "true"].includes(exclude)) filter.excludeAlerts = true;
    else if (!["", "0", "f", "false"].includes(exclude)) {
      return badData(c, `error converting exclude_alerts: strconv.ParseBool: parsing ${JSON.stringify(exclude)}: invalid syntax`);
    }
    return json(c, 200, { status: "success", data: { groups: ruler.rules(tenant, filter) }, errorType: "", error: "" });
  });

  app.get("/prometheus/api/v1/alerts", (c) => {
    const tenant = tenantOf(c, gate, "alerts:read");
    return json(c, 200, { status: "success", data: { alerts: ruler.alerts(tenant) }, errorType: "", error: "" });
  });
}
