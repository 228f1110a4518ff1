// Issue 16 #17: query parameters of /apis reads with garbage in them are a
// 400 Status naming the parameter (the API server's strconv messages), never
// a 500 from the store's bigint column.
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../helpers/api.ts";
import { useServer } from "../../helpers/server.ts";

const FOLD = "/apis/folder.svc.app/v1/namespaces/default/folders";
const DASH = "/apis/dashboard.svc.app/v1/namespaces/default/dashboards";
const token = (data: unknown) => Buffer.from(JSON.stringify(data), "utf8").toString("base64url");

describe("/apis list and get options", () => {
  const t = useServer({ "server.edition": "enterprise" });
  const get = (path: string) => t.api.get(path, { auth: ADMIN });

  it("GET one object with resourceVersion=abc, 1.5, -1 or 20 digits -> 400 BadRequest naming resourceVersion", async () => {
    expect((await t.api.post(FOLD, { auth: ADMIN, body: { metadata: { name: "rv-f" }, spec: { title: "RV" } } })).status).toBe(201);
    const cases: Array<[string, string]> = [
      ["abc", 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'],
      ["1.5", 'resourceVersion: Invalid value: "1.5": strconv.ParseUint: parsing "1.5": invalid syntax'],
      ["-1", 'resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax'],
      ["99999999999999999999", 'resourceVersion: Invalid value: "99999999999999999999": strconv.ParseUint: parsing "99999999999999999999": value out of range'],
    ];
    for (const [rv, message] of cases) {
      const r = await get(`${FOLD}/rv-f?resourceVersion=${encodeURIComponent(rv)}`);
      expect({ rv, status: r.status, body: r.body }).toEqual({
        rv, status: 400, body: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason: "BadRequest", code: 400 },
      });
    }
    // a valid number past the store's range names no version: 404, as for any unknown version
    expect((await get(`${FOLD}/rv-f?resourceVersion=18446744073709551615`)).status).toBe(404);
    // "0" and leading zeros are numbers: the latest, and version 1
    const current = await get(`${FOLD}/rv-f?resourceVersion=0`);
    expect(current.status).toBe(200);
    expect((await get(`${FOLD}/rv-f?resourceVersion=0${current.body.metadata.resourceVersion}`)).status).toBe(200);
  });

  it("list and watch with a bad resourceVersion -> 400; a good one is served", async () => {
    for (const q of ["resourceVersion=abc", "watch=true&resourceVersion=1.5", "resourceVersion=123456789012345678901"]) {
      const r = await get(`${DASH}?${q}`);
      expect({ q, status: r.status, reason: r.body.reason }).toEqual({ q, status: 400, reason: "BadRequest" });
      expect(r.body.message).toMatch(/^resourceVersion: Invalid value: /);
    }
    expect((await get(`${DASH}?resourceVersion=1`)).status).toBe(200);
    expect((await get(`${DASH}?resourceVersion=0&resourceVersionMatch=NotOlderThan`)).status).toBe(200);
  });

  it("limit, timeoutSeconds and resourceVersionMatch with garbage -> 400 naming the parameter", async () => {
    const cases: Array<[string, string]> = [
      ["limit=abc", 'limit: strconv.ParseInt: parsing "abc": invalid syntax'],
      ["limit=1.5", 'limit: strconv.ParseInt: parsing "1.5": invalid syntax'],
      ["limit=99999999999999999999", 'limit: strconv.ParseInt: parsing "99999999999999999999": value out of range'],
      ["timeoutSeconds=soon", 'timeoutSeconds: strconv.ParseInt: parsing "soon": invalid syntax'],
      ["resourceVersion=1&resourceVersionMatch=abc", 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "abc": supported values: "Exact", "NotOlderThan", ""'],
      ["resourceVersionMatch=Exact", 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
    ];
    for (const [q, message] of cases) {
      const r = await get(`${FOLD}?${q}`);
      expect({ q, status: r.status, message: r.body.message }).toEqual({ q, status: 400, message });
    }
    // the spec: absent or < 1 is the default page size
    expect((await get(`${FOLD}?limit=-3&timeoutSeconds=30`)).status).toBe(200);
  });

  it("continue tokens: garbage and forged history cursors -> 400 invalid continue token", async () => {
    const history = `${FOLD}?labelSelector=svc.app/get-history=true&fieldSelector=metadata.name=rv-f`;
    for (const forged of [token({ rv: "abc" }), token({ rv: "1.5" }), token({ rv: "99999999999999999999" }), token({ rv: 5 }), "%%%", token([1])]) {
      const r = await get(`${history}&continue=${encodeURIComponent(forged)}`);
      expect({ forged, status: r.status, message: r.body.message }).toEqual({ forged, status: 400, message: "invalid continue token" });
    }
    for (const forged of [token({ after: { x: 1 } }), token("x"), "%ED%B0%80"]) {
      expect((await get(`${FOLD}?continue=${forged}`)).status).toBeLessThan(500);
    }
    const page = await get(`${history}&limit=1`);
    expect(page.status).toBe(200);
  });

  it("selectors with garbage -> 400", async () => {
    for (const q of ["labelSelector=(((", "fieldSelector=a%20in%20(", "labelSelector=a!!b"]) {
      const r = await get(`${FOLD}?${q}`);
      expect({ q, status: r.status }).toEqual({ q, status: 400 });
    }
  });
});
