// The authenticating proxy in front of the log store: basic auth from an
// htpasswd file (bcrypt), 401 with the realm, the user name as the tenant.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { afterAll, describe, expect, it } from "vitest";
import { parseHtpasswd } from "../../src/apps/logstore/auth-proxy.ts";
import { loadConfig } from "../../src/config/load.ts";
import { useServer } from "../helpers/server.ts";
import { logClient, nsAgo } from "./helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-proxy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const htpasswd = join(dir, ".htpasswd");
// Apache's htpasswd -B writes $2y$ hashes
writeFileSync(htpasswd, `# users\nteam-a:${bcrypt.hashSync("pw-a", 5).replace(/^\$2b\$/, "$2y$")}\nteam-b:${bcrypt.hashSync("pw-b", 5)}\n`);
const basic = (u: string, p: string) => `Basic ${btoa(`${u}:${p}`)}`;

describe("log store auth proxy", () => {
  const t = useServer({ "logs.auth_proxy.enabled": true, "logs.auth_proxy.htpasswd_file": htpasswd, "logs.auth_proxy.port": 0, "logs.auth_proxy.realm": "Outpost Logs" });
  const proxy = () => t.server.urls["logs proxy"]!;
  const call = (path: string, auth?: string, headers: Record<string, string> = {}, init: RequestInit = {}) =>
    fetch(`${proxy()}${path}`, { ...init, headers: { ...(auth ? { Authorization: auth } : {}), ...headers } });

  it("no or wrong credentials -> 401 with WWW-Authenticate naming the realm; /ready stays open", async () => {
    for (const auth of [undefined, basic("team-a", "wrong"), basic("nobody", "pw-a"), "Bearer x"]) {
      const r = await call("/svc/api/v1/labels", auth, { "X-Scope-OrgID": "team-a" });
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toBe('Basic realm="Outpost Logs"');
    }
    expect(await (await call("/ready")).text()).toBe("ready\n");
  });

  it("the user name becomes X-Scope-OrgID, overwriting what the client sent", async () => {
    const push = await call("/svc/api/v1/push", basic("team-a", "pw-a"), { "X-Scope-OrgID": "team-b", "Content-Type": "application/json" }, {
      method: "POST",
      body: JSON.stringify({ streams: [{ stream: { app: "via-proxy" }, values: [[nsAgo(1), "hello"]] }] }),
    });
    expect(push.status).toBe(204);
    const direct = logClient(t.server.urls.logs!);
    expect((await direct.get("/svc/api/v1/label/app/values", "team-a")).body.data).toEqual(["via-proxy"]);
    expect((await direct.get("/svc/api/v1/label/app/values", "team-b")).body).toEqual({ status: "success" });
    const read = await call("/svc/api/v1/label/app/values", basic("team-b", "pw-b"), { "X-Scope-OrgID": "team-a" });
    expect(await read.json()).toEqual({ status: "success" });
    const own = await call("/svc/api/v1/label/app/values", basic("team-a", "pw-a"));
    expect((await own.json()).data).toEqual(["via-proxy"]);
  });

  it("the proxy needs an htpasswd file; entries must be bcrypt", () => {
    expect(() => loadConfig({ flags: { "logs.auth_proxy.enabled": true } })).toThrow(/the proxy needs an htpasswd file/);
    expect(() => parseHtpasswd("ops:$apr1$abc$defghijklmnopqrstuvwx\n", "users")).toThrow("users line 1: only bcrypt entries (htpasswd -B) are supported");
    expect(() => parseHtpasswd(`a/b:${bcrypt.hashSync("x", 4)}`, "users")).toThrow(/the user name becomes the tenant id/);
  });
});
