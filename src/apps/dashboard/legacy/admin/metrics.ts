// GET /metrics on the dashboard listener (the real product's [metrics]
// section, dashboard.metrics.*): Prometheus's text format, or OpenMetrics when
// the scraper prefers it. No session and no permission, as there: a scraper
// is not a user. With basic_auth_username and basic_auth_password both set,
// only a request carrying them is answered, any other gets 401 with no body
// (the real product's answer). Nothing in it is secret: route patterns,
// counts, data source types, the process.
import type { Registry } from "prom-client";
import { basicCredentials, sameSecret } from "../../../../lib/http/basic-auth.ts";
import { metricsAnswer } from "../../../../lib/http/metrics-exposition.ts";
import type { Router } from "../../access/guard.ts";
import { METRICS_PATH } from "../../request-metrics.ts";

export interface MetricsRouteDeps {
  registry: Registry;
  /** dashboard.metrics: basic_auth_* are checked only when both are set */
  settings: { basic_auth_username: string; basic_auth_password: string };
}

export function registerMetrics(r: Router, deps: MetricsRouteDeps): void {
  const { basic_auth_username: username, basic_auth_password: password } = deps.settings;
  const required = username !== "" && password !== "";
  r.get(METRICS_PATH, { public: true }, async (c) => {
    if (required) {
      const given = basicCredentials(c.req.header("Authorization"));
      // both compared, whichever is wrong: the time tells nothing
      const userOk = sameSecret(given?.user ?? "", username);
      const passwordOk = sameSecret(given?.password ?? "", password);
      if (!given || !userOk || !passwordOk) return c.body(null, 401);
    }
    return metricsAnswer(c, deps.registry, { openMetrics: true });
  }, { responses: { 401: "dashboard.metrics.basic_auth_username and _password are set and the request does not carry them" } });
}
