// POST /api/ds/query (spec "Legacy data sources"; reference §4): queries
// answered as data frames. The route needs datasources:query at all; each
// query's data source is then checked (core/queries/ds-query.ts).
import { type } from "../../../lib/arktype.ts";
import { parseBody } from "../../../lib/http/validate.ts";
import { identityOf, type Router } from "../access/guard.ts";
import { runDsQuery, type DsQueryDeps } from "../core/queries/ds-query.ts";
import { jsonObject } from "./schemas.ts";

const DsQueryIn = type({
  "from?": "string | number",
  "to?": "string | number",
  "queries?": jsonObject.array().or("null"),
});

export function registerDsQuery(r: Router, deps: DsQueryDeps): void {
  r.post("/api/ds/query", { action: "datasources:query" }, async (c) => {
    const body = await parseBody(c, DsQueryIn);
    const answer = await runDsQuery(deps, identityOf(c), { ...body, queries: body.queries ?? [] });
    return c.json(answer.body, answer.status as 200);
  }, { body: DsQueryIn });
}
