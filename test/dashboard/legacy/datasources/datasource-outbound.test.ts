// Issue 16, "Outgoing requests from the dashboard": every request made for a
// data source (proxy, resources, health check, /api/ds/query) is checked
// against security.data_source_proxy_whitelist (host:port, host, IP or CIDR)
// and the link-local (default on) and loopback (default off) refusals, on the
// resolved addresses.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, client } from "../../../helpers/api.ts";
import { startTestServer, useServer, type TestServer } from "../../../helpers/server.ts";
import { startUpstream, type Upstream } from "../upstream-echo.ts";

type Api = ReturnType<typeof client>;

async function createDs(api: Api, name: string, url: string, type = "prometheus"): Promise<string> {
  const r = await api.post("/api/datasources", { auth: ADMIN, body: { name, type, access: "proxy", url, jsonData: { tenantId: "t" } } });
  expect(r.status).toBe(200);
  return r.body.datasource.uid as string;
}

/** proxy, resources, health and a query through /api/ds/query: the status or error each gives */
async function everyPath(api: Api, uid: string) {
  const proxy = await api.get(`/api/datasources/proxy/uid/${uid}/api/v1/labels`, { auth: ADMIN });
  const resource = await api.get(`/api/datasources/uid/${uid}/resources/api/v1/labels`, { auth: ADMIN });
  const health = await api.get(`/api/datasources/uid/${uid}/health`, { auth: ADMIN });
  const query = await api.post("/api/ds/query", {
    auth: ADMIN, body: { from: "now-5m", to: "now", queries: [{ refId: "A", datasource: { uid }, expr: "up", instant: true }] },
  });
  return { proxy, resource, health, query: query.body.results?.A };
}

describe("outgoing requests: defaults (link-local refused, loopback allowed)", () => {
  const t = useServer();
  let upstream: Upstream;
  beforeAll(async () => {
    upstream = await startUpstream();
  });
  afterAll(async () => {
    await upstream?.close();
  });

  it("a data source on 169.254.169.254 (cloud metadata) or [fe80::1] -> 403 on proxy and resources, ERROR on health and query", async () => {
    for (const [name, url, addr] of [["metadata", "http://169.254.169.254", "169.254.169.254"], ["link-local-v6", "http://[fe80::1]:9090", "fe80::1"]] as const) {
      const uid = await createDs(t.api, name, url);
      const r = await everyPath(t.api, uid);
      for (const res of [r.proxy, r.resource]) {
        expect(res.status).toBe(403);
        expect(res.body.message).toBe(`data source URL not allowed: ${addr} is a link-local address (security.data_source_refuse_link_local)`);
      }
      expect(r.health.status).toBe(400);
      expect(r.health.body.message).toContain("is a link-local address");
      expect(JSON.stringify(r.query)).toContain("is a link-local address");
    }
  });

  it("a loopback data source -> allowed (the bundled stores listen there)", async () => {
    const uid = await createDs(t.api, "loopback-ok", upstream.url);
    expect((await t.api.get(`/api/datasources/proxy/uid/${uid}/api/v1/labels`, { auth: ADMIN })).status).toBe(202);
  });
});

describe("outgoing requests: security.data_source_refuse_loopback", () => {
  const t = useServer({ "security.data_source_refuse_loopback": true });
  let upstream: Upstream;
  beforeAll(async () => {
    upstream = await startUpstream();
  });
  afterAll(async () => {
    await upstream?.close();
  });

  it("127.0.0.1, localhost (resolved) and 0.0.0.0 -> refused, and nothing reaches the upstream", async () => {
    const port = new URL(upstream.url).port;
    for (const [name, url] of [["lo-ip", upstream.url], ["lo-name", `http://localhost:${port}`], ["lo-any", `http://0.0.0.0:${port}`]] as const) {
      const uid = await createDs(t.api, name, url);
      const r = await everyPath(t.api, uid);
      expect({ name, proxy: r.proxy.status, resource: r.resource.status, health: r.health.status }).toEqual({ name, proxy: 403, resource: 403, health: 400 });
      expect(r.proxy.body.message).toMatch(/^data source URL not allowed: .+ is a loopback address \(security.data_source_refuse_loopback\)$/);
    }
    expect(upstream.received).toEqual([]);
  });
});

describe("outgoing requests: security.data_source_proxy_whitelist", () => {
  let allowed: Upstream;
  let other: Upstream;
  const servers: TestServer[] = [];
  const start = async (list: string) => {
    const server = await startTestServer({ "security.data_source_proxy_whitelist": list });
    servers.push(server);
    return client(server.urls.dashboard);
  };
  beforeAll(async () => {
    [allowed, other] = [await startUpstream(), await startUpstream()];
  });
  afterAll(async () => {
    for (const s of servers) await s.stop();
    await allowed?.close();
    await other?.close();
  });

  it("host:port entries: the listed target answers, another port -> 403 with the real product's message; a name entry matches the URL's name", async () => {
    const [a, b] = [new URL(allowed.url).port, new URL(other.url).port];
    const api = await start(`127.0.0.1:${a}, localhost:${b}`);
    const ok = await createDs(api, "listed", allowed.url);
    expect((await api.get(`/api/datasources/proxy/uid/${ok}/api/v1/labels`, { auth: ADMIN })).status).toBe(202);
    const byName = await createDs(api, "listed-by-name", `http://localhost:${b}`);
    expect((await api.get(`/api/datasources/proxy/uid/${byName}/api/v1/labels`, { auth: ADMIN })).status).toBe(202);
    other.received.length = 0;
    const refused = await createDs(api, "unlisted", other.url);
    const r = await everyPath(api, refused);
    expect(r.proxy.status).toBe(403);
    expect(r.proxy.body.message).toBe("Data proxy hostname and ip are not included in whitelist");
    expect(r.resource.status).toBe(403);
    expect(r.health.body.message).toContain("Data proxy hostname and ip are not included in whitelist");
    expect(JSON.stringify(r.query)).toContain("Data proxy hostname and ip are not included in whitelist");
    expect(other.received).toEqual([]);
  });

  it("a CIDR entry covers every port of its addresses; a name resolving into it is allowed", async () => {
    const api = await start("127.0.0.0/8");
    for (const url of [allowed.url, other.url, `http://localhost:${new URL(other.url).port}`]) {
      const uid = await createDs(api, `cidr-${new URL(url).host}`, url);
      expect({ url, status: (await api.get(`/api/datasources/proxy/uid/${uid}/api/v1/labels`, { auth: ADMIN })).status }).toEqual({ url, status: 202 });
    }
    const outside = await createDs(api, "cidr-outside", "http://10.255.255.1:9090");
    expect((await api.get(`/api/datasources/proxy/uid/${outside}/api/v1/labels`, { auth: ADMIN })).status).toBe(403);
  });

  it("an entry that is no host, host:port, IP or CIDR -> startup fails naming the key", async () => {
    await expect(startTestServer({ "security.data_source_proxy_whitelist": "http://x/y" })).rejects.toThrow(/security.data_source_proxy_whitelist: "http:\/\/x\/y" is not a host/);
  });
});
