// Secure values (spec "Secure values", reference §6.9, conformance checks
// 148-154 with the spec's 400 where the reference says 422): every limit,
// the write-only value, DELETE removing the sealed value, the permissions.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../helpers/api.ts";
import { useServer } from "../../helpers/server.ts";

const SV = "/apis/secret.svc.app/v1beta1/namespaces/default/securevalues";
const secret = (label: string) => `s3cr3t-${label}-${crypto.randomUUID()}`;
const sv = (name: string, spec: Record<string, unknown>) => ({ metadata: { name }, spec });

describe("secure values", () => {
  const t = useServer();
  const values: string[] = [];
  const value = (label: string) => {
    const v = secret(label);
    values.push(v);
    return v;
  };
  const post = (body: unknown, auth = ADMIN) => t.api.post(SV, { auth, body });
  const sealedRows = async (name: string) =>
    (await t.server.db.pg.query<{ sealed: string }>("select sealed from secrets where owner = $1", [`securevalue:default/${name}`])).rows;
  const expectInvalid = async (body: unknown, field: string, message: RegExp, method: "post" | "put" = "post", path = SV) => {
    const r = await t.api[method](path, { auth: ADMIN, body });
    expect({ status: r.status, kind: r.body.kind, reason: r.body.reason, code: r.body.code }).toEqual({ status: 400, kind: "Status", reason: "BadRequest", code: 400 });
    expect(r.body.details.causes.map((c: { field: string }) => c.field)).toContain(field);
    expect(r.body.message).toMatch(message);
    return r;
  };

  it("POST -> 201 without spec.value (148); GET -> 200 without spec.value (149); the value is sealed", async () => {
    const v = value("s1");
    const r = await post(sv("s1", { description: "db pw", value: v }));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ kind: "SecureValue", apiVersion: "secret.svc.app/v1beta1", metadata: { name: "s1", namespace: "default" }, spec: { description: "db pw" } });
    expect(r.body.spec).not.toHaveProperty("value");
    const got = await t.api.get(`${SV}/s1`, { auth: ADMIN });
    expect(got.status).toBe(200);
    expect(got.body.spec).toEqual({ description: "db pw" });
    const rows = await sealedRows("s1");
    expect(rows).toHaveLength(1);
    expect(rows[0]!.sealed).not.toContain(v);
    expect(JSON.stringify([r.body, got.body])).not.toContain(v);
  });

  it("description missing -> 400 naming spec.description (150); value missing -> 400 \"either a `value` or `ref` is required\" (151)", async () => {
    await expectInvalid(sv("s2", { value: value("s2") }), "spec.description", /a `description` is required/);
    await expectInvalid(sv("s3", { description: "d" }), "spec", /either a `value` or `ref` is required/);
    await expectInvalid(sv("s3", { description: "d", value: "" }), "spec", /either a `value` or `ref` is required/);
    await expectInvalid(sv("s3", { description: "d", value: 5 }), "spec.value", /must be a string/);
    await expectInvalid(sv("s3", { description: 5, value: value("s3") }), "spec.description", /must be a string/);
    await expectInvalid(sv("s3", { description: "d", value: value("s3"), ref: "elsewhere" }), "spec.ref", /not supported/);
    expect((await t.api.get(`${SV}/s3`, { auth: ADMIN })).status).toBe(404);
  });

  it("description of 25 characters -> 201, 26 -> 400 (152); characters are counted, not bytes", async () => {
    expect((await post(sv("desc-25", { description: "d".repeat(25), value: value("d25") }))).status).toBe(201);
    expect((await post(sv("desc-25-emoji", { description: "🔑".repeat(25), value: value("d25e") }))).status).toBe(201);
    await expectInvalid(sv("desc-26", { description: "d".repeat(26), value: value("d26") }), "spec.description", /at most 25 characters/);
  });

  it("value of 24576 bytes -> 201, 24577 bytes -> 400 (bytes, not characters), and the value is not quoted", async () => {
    expect((await post(sv("max-value", { description: "max", value: "é".repeat(12288) }))).status).toBe(201);
    const long = `${"é".repeat(12288)}x`;
    const r = await expectInvalid(sv("too-long", { description: "too long", value: long }), "spec.value", /at most 24576 bytes/);
    expect(JSON.stringify(r.body)).not.toContain("éé");
  });

  it("decrypters: the allowed ones -> 201; unknown -> 400 naming spec.decrypters[i]; duplicates (153), an empty item, more than 64 -> 400; an empty list -> 201", async () => {
    const all = ["loadtest-cloud", "provisioning.svc.app", "synthetic-monitoring"];
    const ok = await post(sv("decrypt-ok", { description: "d", value: value("dec"), decrypters: all }));
    expect(ok.status).toBe(201);
    expect(ok.body.spec).toEqual({ description: "d", decrypters: all });
    await expectInvalid(sv("decrypt-bad", { description: "d", value: value("dec"), decrypters: ["loadtest-cloud", "a"] }), "spec.decrypters[1]", /must be one of/);
    await expectInvalid(sv("decrypt-dup", { description: "d", value: value("dec"), decrypters: ["loadtest-cloud", "loadtest-cloud"] }), "spec.decrypters", /decrypters must be unique/);
    // (issue 21) an empty list is accepted, as by the real product; an empty item is what "cannot be empty" refuses
    const none = await post(sv("decrypt-none", { description: "d", value: value("dec"), decrypters: [] }));
    expect(none.status).toBe(201);
    expect(none.body.spec).toEqual({ description: "d", decrypters: [] });
    await expectInvalid(sv("decrypt-blank", { description: "d", value: value("dec"), decrypters: ["loadtest-cloud", " "] }), "spec.decrypters[1]", /decrypters cannot be empty if specified/);
    await expectInvalid(sv("decrypt-65", { description: "d", value: value("dec"), decrypters: Array(65).fill("loadtest-cloud") }), "spec.decrypters", /at most 64 items/);
    await expectInvalid(sv("decrypt-str", { description: "d", value: value("dec"), decrypters: "loadtest-cloud" }), "spec.decrypters", /must be a list/);
  });

  it("a bad name (154) -> 400; generateName -> a new name with the prefix; a duplicate name -> 409", async () => {
    const bad = await post(sv("Bad_Name", { description: "d", value: value("bad") }));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ kind: "Status", status: "Failure" });
    const gen = await post({ metadata: { generateName: "gen-" }, spec: { description: "generated", value: value("gen") } });
    expect(gen.status).toBe(201);
    expect(gen.body.metadata.name).toMatch(/^gen-[a-z0-9]+$/);
    expect(gen.body.metadata.name.length).toBeGreaterThan(4);
    expect(await sealedRows(gen.body.metadata.name)).toHaveLength(1);
    const first = await post(sv("dup", { description: "first", value: value("dup1") }));
    const before = await sealedRows("dup");
    const dup = await post(sv("dup", { description: "second", value: value("dup2") }));
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ reason: "AlreadyExists", code: 409, message: 'securevalues.secret.svc.app "dup" already exists' });
    // the first value is untouched
    expect(first.status).toBe(201);
    expect(await sealedRows("dup")).toEqual(before);
  });

  it("PUT -> 200 with a new sealed value and no value in the response; without a value -> 400", async () => {
    await post(sv("rotate", { description: "v1", value: value("rot1") }));
    const before = await sealedRows("rotate");
    const r = await t.api.put(`${SV}/rotate`, { auth: ADMIN, body: sv("rotate", { description: "v2", value: value("rot2"), decrypters: ["provisioning.svc.app"] }) });
    expect(r.status).toBe(200);
    expect(r.body.spec).toEqual({ description: "v2", decrypters: ["provisioning.svc.app"] });
    const after = await sealedRows("rotate");
    expect(after).toHaveLength(1);
    expect(after[0]!.sealed).not.toBe(before[0]!.sealed);
    await expectInvalid(sv("rotate", { description: "v3" }), "spec", /either a `value` or `ref` is required/, "put", `${SV}/rotate`);
    expect((await t.api.get(`${SV}/rotate`, { auth: ADMIN })).body.spec.description).toBe("v2");
    expect(await sealedRows("rotate")).toEqual(after);
    expect((await t.api.put(`${SV}/nope`, { auth: ADMIN, body: sv("nope", { description: "d", value: value("nope") }) })).status).toBe(404);
  });

  it("DELETE -> the Status object, and the sealed value is gone; GET -> 404", async () => {
    await post(sv("to-delete", { description: "bye", value: value("del") }));
    expect(await sealedRows("to-delete")).toHaveLength(1);
    const r = await t.api.delete(`${SV}/to-delete`, { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ apiVersion: "v1", kind: "Status", status: "Success", code: 200, details: { name: "to-delete", group: "secret.svc.app", kind: "securevalues" } });
    expect(await sealedRows("to-delete")).toEqual([]);
    expect((await t.api.get(`${SV}/to-delete`, { auth: ADMIN })).status).toBe(404);
    expect((await t.api.delete(`${SV}/to-delete`, { auth: ADMIN })).status).toBe(404);
    // the name can be used again, with a new value
    expect((await post(sv("to-delete", { description: "again", value: value("again") }))).status).toBe(201);
  });

  it("viewer and editor -> 403 on every operation; admin -> allowed", async () => {
    await post(sv("guarded", { description: "admin only", value: value("guarded") }));
    for (const role of ["Viewer", "Editor"] as const) {
      const u = await t.api.user(`sv-${role.toLowerCase()}`, role);
      const tries = [
        await t.api.get(SV, { auth: u.auth }),
        await t.api.get(`${SV}/guarded`, { auth: u.auth }),
        await t.api.post(SV, { auth: u.auth, body: sv(`by-${role.toLowerCase()}`, { description: "d", value: value("role") }) }),
        await t.api.put(`${SV}/guarded`, { auth: u.auth, body: sv("guarded", { description: "taken", value: value("role") }) }),
        await t.api.delete(`${SV}/guarded`, { auth: u.auth }),
      ];
      // a list the caller may not read is either refused or empty
      for (const r of tries.slice(1)) expect(r.status).toBe(403);
      expect(tries[0]!.status === 403 || tries[0]!.body.items.length === 0).toBe(true);
    }
    expect((await t.api.get(`${SV}/guarded`, { auth: ADMIN })).body.spec.description).toBe("admin only");
    expect(await sealedRows("by-viewer")).toEqual([]);
  });

  it("a data source naming a secure value is listed in secureJsonFields and sends the value upstream, the only place it goes", async () => {
    const v = value("for-ds");
    await post(sv("for-ds", { description: "ds token", value: v }));
    const headers: string[] = [];
    const upstream = createServer((req, res) => {
      headers.push(String(req.headers["x-token"]));
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end('{"status":"success","data":{"resultType":"vector","result":[]}}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
      const r = await t.api.post("/api/datasources", {
        auth: ADMIN, body: { name: "uses sv", type: "prometheus", url, jsonData: { httpHeaderName1: "X-Token" }, secureJsonData: { httpHeaderValue1: { name: "for-ds" } } },
      });
      expect(r.status).toBe(200);
      expect(r.body.datasource.secureJsonFields).toEqual({ httpHeaderValue1: true });
      const proxied = await t.api.get(`/api/datasources/proxy/uid/${r.body.datasource.uid}/api/v1/query?query=up`, { auth: ADMIN });
      expect(proxied.status).toBe(200);
      expect(headers).toEqual([v]);
      // a new value is used at once
      const v2 = value("for-ds-2");
      expect((await t.api.put(`${SV}/for-ds`, { auth: ADMIN, body: sv("for-ds", { description: "ds token", value: v2 }) })).status).toBe(200);
      await t.api.get(`/api/datasources/proxy/uid/${r.body.datasource.uid}/api/v1/query?query=up`, { auth: ADMIN });
      expect(headers).toEqual([v, v2]);
      expect(JSON.stringify(proxied.body)).not.toContain(v);
    } finally {
      await new Promise((resolve) => upstream.close(resolve));
    }
  });

  it("the value is in no list, no resource or history row and no log line", async () => {
    const list = await t.api.get(SV, { auth: ADMIN });
    expect(list.status).toBe(200);
    expect(list.body.kind).toBe("SecureValueList");
    expect(list.body.items.length).toBeGreaterThan(5);
    for (const item of list.body.items) expect(item.spec).not.toHaveProperty("value");
    const stored = await t.server.db.pg.query("select object from resources union all select object from resource_history");
    const everything = JSON.stringify([list.body, stored.rows, t.server.logs]);
    expect(values.length).toBeGreaterThan(15);
    for (const v of values) expect(everything).not.toContain(v);
    expect(everything).not.toContain("é".repeat(100));
  });
});
