// Search reads its parameters from one parse of the query string (issue 17:
// hono parsed the whole query string again for every parameter a URL with an
// escape lacked). The answers are those of hono's own reading: escaped names
// and values decoded, + as a space, the first of repeated single values, every
// value of repeated list parameters.
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../helpers/api.ts";
import { useServer } from "../../helpers/server.ts";

const DASH = "/apis/dashboard.svc.app/v1/namespaces/default/dashboards";

describe("search parameters", () => {
  const t = useServer();

  it("escaped names and values, + as space, first of repeated single values, all of repeated lists", async () => {
    for (const [name, title, tags] of [["sp-1", "Params Alpha", ["x"]], ["sp-2", "Params Beta", ["x", "y"]], ["sp-3", "Other", ["y"]]] as const) {
      expect((await t.api.post(DASH, { auth: ADMIN, body: { metadata: { name }, spec: { title, tags } } })).status).toBe(201);
    }
    const uids = async (qs: string) => {
      const res = await t.api.get(`/api/search?${qs}`, { auth: ADMIN });
      expect(res.status).toBe(200);
      return (res.body as Array<{ uid: string }>).map((h) => h.uid);
    };
    expect(await uids("query=params+alpha")).toEqual(["sp-1"]);
    expect(await uids("%71uery=params%20b")).toEqual(["sp-2"]);
    expect(await uids("query=params&query=other")).toEqual(["sp-1", "sp-2"]);
    expect(await uids("tag=x&t%61g=y")).toEqual(["sp-2"]);
    expect(await uids("dashboardUIDs=sp-1,sp-3&dashboardUID=sp-2")).toEqual(["sp-3", "sp-1", "sp-2"]);
    expect(await uids("query=params&limit=1&limit=5&page=2")).toEqual(["sp-2"]);
    expect(await uids("%71uery=params&type=dash-folder")).toEqual([]);
  });
});
