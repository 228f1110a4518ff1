// Holes a review found in tokens mode (issue 22), each reproduced: an
// anonymous caller made the log store parse its body before the token check,
// could hold a push slot with a slow body, one token's endless base64
// spellings filled the header memo, a page of another site could POST into
// a store, and a certificate mapped to one tenant read every tenant's
// statistics in header mode.
import { describe, expect, it } from "vitest";
import { certField } from "../../src/store-access/cert-tenant.ts";
import { rememberedHeaders } from "../../src/store-access/authorize.ts";
import { useServer } from "../helpers/server.ts";
import { ADMIN_TOKEN, adminApi, answer, basic } from "./helpers.ts";

const ctx = useServer({
  "logs.auth.type": "tokens",
  "metrics.auth.type": "tokens",
  "metrics.admin_token": ADMIN_TOKEN,
  "metrics.ingester.instance_limits.max_inflight_push_requests": 1,
});

describe("tokens mode: credentials before the body", () => {
  it("an anonymous form POST to a log query is refused with 401 before its body is parsed (was: a 400 of the parser, after it)", async () => {
    // a multipart body without its boundary: parsing it fails, so a parse before the check would answer 400
    const a = await fetch(`${ctx.server.urls.logs}/loki/api/v1/query_range`, {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data", "X-Scope-OrgID": "a" },
      body: "x".repeat(1024),
    }).then(answer);
    expect(a.status).toBe(401);
  });

  it("an anonymous push whose body never ends is answered 401 at once and holds no push slot", async () => {
    const stalled = new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new Uint8Array(10)) });
    const controller = new AbortController();
    try {
      const res = await fetch(`${ctx.server.urls.metrics}/api/v1/push`, {
        method: "POST",
        headers: { "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy", "X-Scope-OrgID": "a" },
        body: stalled,
        signal: controller.signal,
        duplex: "half",
      } as RequestInit);
      expect(res.status).toBe(401);
      // the one push slot (max_inflight_push_requests: 1) is free for a real writer meanwhile
      const admin = adminApi(ctx.server.urls.metrics!);
      await admin.policy("writer", ["a"], ["metrics:write"]);
      const token = await admin.token("writer", "writer");
      const { writeBody } = await import("../metrics/helpers.ts");
      const ok = await fetch(`${ctx.server.urls.metrics}/api/v1/push`, {
        method: "POST",
        headers: { "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy", Authorization: basic("a", token) },
        body: writeBody([{ labels: { __name__: "m" }, samples: [[Date.now(), 1]] }]),
      });
      expect(ok.status).toBe(200);
    } finally {
      controller.abort();
    }
  });
});

describe("tokens mode: the header memo", () => {
  it("endless spellings of one token (characters a base64 decoder skips) never take a place in it", async () => {
    const admin = adminApi(ctx.server.urls.metrics!);
    await admin.policy("spelled", ["a"], ["metrics:read"]);
    const token = await admin.token("spelled", "spelled");
    const canonical = basic("a", token);
    const url = `${ctx.server.urls.metrics}/prometheus/api/v1/labels`;
    expect((await fetch(url, { headers: { Authorization: canonical } })).status).toBe(200);
    const before = rememberedHeaders();
    for (let i = 0; i < 50; i++) {
      const junk = [...i.toString(2)].map((b) => (b === "0" ? "." : "!")).join("");
      const res = await fetch(url, { headers: { Authorization: `${canonical}${junk}${".".repeat(1000)}` } });
      expect([200, 401]).toContain(res.status);
      const spaced = await fetch(url, { headers: { Authorization: `Bearer${" ".repeat(i + 2)}${token}`, "X-Scope-OrgID": "a" } });
      expect(spaced.status).toBe(200);
    }
    expect(rememberedHeaders()).toBe(before);
  });

  it("a header whose token is refused (403) is not remembered", async () => {
    const admin = adminApi(ctx.server.urls.metrics!);
    await admin.policy("wrong-scope", ["a"], ["logs:write"]);
    const token = await admin.token("wrong-scope", "wrong-scope");
    const before = rememberedHeaders();
    expect((await fetch(`${ctx.server.urls.metrics}/prometheus/api/v1/labels`, { headers: { Authorization: basic("a", token) } })).status).toBe(403);
    expect(rememberedHeaders()).toBe(before);
  });
});

describe("a page of another site cannot write into a store", () => {
  it("a POST carrying a foreign Origin -> 403 origin not allowed, on both stores; a GET is still answered (without CORS headers)", async () => {
    const evil = { Origin: "https://evil.example" };
    const push = await fetch(`${ctx.server.urls.logs}/loki/api/v1/push`, { method: "POST", headers: { ...evil, "Content-Type": "text/plain" }, body: "{}" }).then(answer);
    expect(push.status).toBe(403);
    expect(push.text).toBe("origin not allowed\n");
    const rules = await fetch(`${ctx.server.urls.metrics}/prometheus/config/v1/rules/ns`, { method: "POST", headers: evil, body: "name: g" }).then(answer);
    expect(rules.status).toBe(403);
    const read = await fetch(`${ctx.server.urls.metrics}/ready`, { headers: evil });
    expect(read.status).toBe(200);
    expect(read.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });
});

describe("certificate -> tenant: san_uri", () => {
  it("reads the path only: a fragment or query never names the tenant", () => {
    const cert = (san: string) => ({ authorized: true, subject: {}, subjectaltname: san });
    expect(certField(cert("URI:spiffe://site/tenants/evil#team-a"), "san_uri")).toBe("evil");
    expect(certField(cert("URI:spiffe://site/tenants/evil?t=team-a"), "san_uri")).toBe("evil");
    expect(certField(cert("URI:spiffe://site/tenants/team-b"), "san_uri")).toBe("team-b");
    expect(certField(cert("URI:not a uri"), "san_uri")).toBeUndefined();
  });
});
