// Issue 16 #16: names longer than the real product's columns are a 400
// naming the field, on every create/update route with a name-like field. A
// long name used to reach a unique index: 1 MiB was a 500 ("index row
// requires ... bytes"), 9,000 characters a wrong 409 "name taken", 100 KiB
// of a repeated letter (which compresses) was stored.
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { mulberry32 } from "../../../helpers/rng.ts";
import { useServer } from "../../../helpers/server.ts";

/** seeded pseudo-random letters: they do not compress, so an index sees their full size */
function noise(n: number, seed = n): string {
  const next = mulberry32(seed);
  const out = new Array<string>(n);
  // the generator's 32-bit integer, as before: the same letters for the same seed
  for (let i = 0; i < n; i++) out[i] = String.fromCharCode(97 + ((next() * 4294967296) % 26));
  return out.join("");
}
const MiB = noise(1024 * 1024);
const FOLD = "/apis/folder.svc.app/v1/namespaces/default/folders";
const DASH = "/apis/dashboard.svc.app/v1/namespaces/default/dashboards";
const PLAY = "/apis/playlist.svc.app/v1/namespaces/default/playlists";
const RULES = "/api/v1/provisioning/alert-rules";

describe("name length limits", () => {
  const t = useServer({ "server.edition": "enterprise" });
  const tooLong = (field: string, max: number) => ({ status: 400, message: `bad request data: ${field} must be at most ${max} characters` });
  const send = async (method: "post" | "patch" | "put", path: string, body: unknown) => {
    const r = await t.api[method](path, { auth: ADMIN, body });
    return { status: r.status, message: r.body?.message as string };
  };

  it("POST /api/teams, /api/orgs, /api/serviceaccounts and tokens with 9,000 characters or 1 MiB -> 400 naming the field", async () => {
    const sa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "limits-sa" } });
    expect(sa.status).toBe(201);
    for (const name of [noise(9000), MiB, noise(100 * 1024)]) {
      expect(await send("post", "/api/teams", { name })).toEqual(tooLong("name", 190));
      expect(await send("post", "/api/orgs", { name })).toEqual(tooLong("name", 190));
      expect(await send("post", "/api/serviceaccounts", { name })).toEqual(tooLong("name", 190));
      expect(await send("post", `/api/serviceaccounts/${sa.body.id}/tokens`, { name })).toEqual(tooLong("name", 190));
      expect(await send("patch", `/api/serviceaccounts/${sa.body.id}`, { name })).toEqual(tooLong("name", 190));
    }
    expect(await send("post", "/api/teams", { name: "limits-team", email: noise(191) })).toEqual(tooLong("email", 190));
    expect((await t.api.get("/api/health")).status).toBe(200);
  });

  it("at the limit is accepted, one more is refused; characters, not bytes or UTF-16 units, are counted", async () => {
    const at = noise(190);
    expect((await t.api.post("/api/teams", { auth: ADMIN, body: { name: at } })).status).toBe(200);
    // still a duplicate when it is one: 409 as before
    expect(await send("post", "/api/teams", { name: at })).toEqual({ status: 409, message: "Team name taken" });
    expect(await send("post", "/api/teams", { name: noise(191) })).toEqual(tooLong("name", 190));
    const emoji = "\u{1F600}".repeat(190); // 380 UTF-16 units, 760 bytes
    expect((await t.api.post("/api/orgs", { auth: ADMIN, body: { name: emoji } })).status).toBe(200);
    expect(await send("post", "/api/orgs", { name: `${emoji}x` })).toEqual(tooLong("name", 190));
  });

  it("POST /api/admin/users: login and email 190, name 255", async () => {
    const user = (extra: Record<string, unknown>) => ({ login: `u${Math.random()}`, password: "password-1", ...extra });
    expect(await send("post", "/api/admin/users", user({ login: noise(9000) }))).toEqual(tooLong("login", 190));
    expect(await send("post", "/api/admin/users", user({ email: `${noise(190)}@x.test` }))).toEqual(tooLong("email", 190));
    expect(await send("post", "/api/admin/users", user({ name: noise(256) }))).toEqual(tooLong("name", 255));
    expect((await t.api.post("/api/admin/users", { auth: ADMIN, body: user({ name: noise(255) }) })).status).toBe(200);
  });

  it("roles: name, displayName and group at most 190, on create and update", async () => {
    expect(await send("post", "/api/access-control/roles", { name: noise(191), permissions: [] })).toEqual(tooLong("name", 190));
    expect(await send("post", "/api/access-control/roles", { name: "limits:r1", displayName: noise(9000), permissions: [] })).toEqual(tooLong("displayName", 190));
    const role = await t.api.post("/api/access-control/roles", { auth: ADMIN, body: { name: "limits:r2", permissions: [] } });
    expect(role.status).toBe(200);
    expect(await send("put", `/api/access-control/roles/${role.body.uid}`, { name: "limits:r2", group: noise(191), permissions: [] })).toEqual(tooLong("group", 190));
  });

  it("alert rules: title and ruleGroup at most 190", async () => {
    await t.api.post(FOLD, { auth: ADMIN, body: { metadata: { name: "limits-f" }, spec: { title: "Limits" } } });
    const rule = (extra: Record<string, unknown>) => ({
      title: "t", ruleGroup: "g", folderUID: "limits-f", condition: "A", data: [{ refId: "A", model: { expr: "up == 0" } }], ...extra,
    });
    expect(await send("post", RULES, rule({ title: noise(9000) }))).toEqual(tooLong("title", 190));
    expect(await send("post", RULES, rule({ ruleGroup: noise(191) }))).toEqual(tooLong("ruleGroup", 190));
    expect((await t.api.post(RULES, { auth: ADMIN, body: rule({ title: noise(190) }) })).status).toBe(201);
  });

  it("/apis: titles within their columns, metadata.name within the kind's limit, label and annotation sizes as Kubernetes", async () => {
    const invalid = async (path: string, body: unknown, field: string, detail: string) => {
      const r = await t.api.post(path, { auth: ADMIN, body });
      expect({ status: r.status, reason: r.body.reason, cause: r.body.details?.causes?.[0] }).toEqual({
        status: 400, reason: "BadRequest", cause: { reason: "FieldValueInvalid", field, message: detail },
      });
    };
    await invalid(FOLD, { metadata: { name: "lf1" }, spec: { title: noise(190) } }, "spec.title", "must be at most 189 characters");
    await invalid(DASH, { metadata: { name: "ld1" }, spec: { title: MiB } }, "spec.title", "must be at most 255 characters");
    await invalid(PLAY, { metadata: { name: "lp1" }, spec: { title: noise(256), interval: "5m" } }, "spec.title", "must be at most 255 characters");
    await invalid(FOLD, { metadata: { name: noise(9000) }, spec: { title: "x" } }, "metadata.name", "must be no more than 40 characters");
    await invalid(FOLD, { metadata: { generateName: noise(9000) }, spec: { title: "x" } }, "metadata.name", "must be no more than 40 characters");
    await invalid(FOLD, { metadata: { name: "lf2", labels: { a: noise(64) } }, spec: { title: "x" } }, "metadata.labels.a", "must be no more than 63 characters");
    await invalid(FOLD, { metadata: { name: "lf3", labels: { [noise(64)]: "v" } }, spec: { title: "x" } }, "metadata.labels", "name part must be no more than 63 characters");
    await invalid(FOLD, { metadata: { name: "lf4", annotations: { [`${noise(254)}/k`]: "v" } }, spec: { title: "x" } }, "metadata.annotations", "prefix part must be no more than 253 characters");
    await invalid(FOLD, { metadata: { name: "lf5", annotations: { big: noise(300 * 1024) } }, spec: { title: "x" } }, "metadata.annotations", "Too long: must have at most 262144 bytes");
    expect((await t.api.post(FOLD, { auth: ADMIN, body: { metadata: { name: "lf6", labels: { a: noise(63) } }, spec: { title: noise(189) } } })).status).toBe(201);
  });
});
