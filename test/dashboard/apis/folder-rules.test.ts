// Folders holding alert rules: deletion refused unless forceDeleteRules=true.
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../helpers/api.ts";
import { useServer } from "../../helpers/server.ts";

const FOLD = "/apis/folder.svc.app/v1/namespaces/default/folders";
const RULES = "/api/v1/provisioning/alert-rules";
const rule = (folderUID: string, title: string) => ({
  title, ruleGroup: "group-1", folderUID, condition: "A", data: [{ refId: "A", model: { expr: "up == 0" } }], for: "5m",
});

describe("alert rules in folders", () => {
  const t = useServer();

  it("POST/GET/DELETE alert rules; unknown folder -> 400; missing field -> 400", async () => {
    await t.api.post(FOLD, { auth: ADMIN, body: { metadata: { name: "ar-f" }, spec: { title: "Rules" } } });
    const r = await t.api.post(RULES, { auth: ADMIN, body: rule("ar-f", "Node down") });
    expect(r.status).toBe(201);
    // read the uid first: bun's toMatchObject writes asymmetric matchers into the object it checks
    const uid = r.body.uid as string;
    expect(uid).toMatch(/^\w+$/);
    expect(r.body).toMatchObject({ title: "Node down", folderUID: "ar-f", ruleGroup: "group-1" });
    expect((await t.api.get(`${RULES}/${uid}`, { auth: ADMIN })).body.title).toBe("Node down");
    expect((await t.api.post(RULES, { auth: ADMIN, body: rule("nope", "x") })).status).toBe(400);
    expect((await t.api.post(RULES, { auth: ADMIN, body: { title: "x" } })).status).toBe(400);
    expect((await t.api.delete(`${RULES}/${uid}`, { auth: ADMIN })).status).toBe(204);
    expect((await t.api.get(`${RULES}/${uid}`, { auth: ADMIN })).status).toBe(404);
  });

  it("a folder (or a subfolder) with alert rules: DELETE -> 400; with forceDeleteRules=true the rules go too", async () => {
    await t.api.post(FOLD, { auth: ADMIN, body: { metadata: { name: "ar-top" }, spec: { title: "Top" } } });
    await t.api.post(FOLD, { auth: ADMIN, body: { metadata: { name: "ar-sub", annotations: { "svc.app/folder": "ar-top" } }, spec: { title: "Sub" } } });
    const r = await t.api.post(RULES, { auth: ADMIN, body: rule("ar-sub", "Disk full") });
    const refused = await t.api.delete(`${FOLD}/ar-top`, { auth: ADMIN });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe("folder cannot be deleted: folder contains alert rules");
    expect((await t.api.delete(`${FOLD}/ar-top?forceDeleteRules=false`, { auth: ADMIN })).status).toBe(400);
    expect((await t.api.get(`${FOLD}/ar-sub`, { auth: ADMIN })).status).toBe(200);
    expect((await t.api.delete(`${FOLD}/ar-top?forceDeleteRules=true`, { auth: ADMIN })).status).toBe(200);
    expect((await t.api.get(`${RULES}/${r.body.uid}`, { auth: ADMIN })).status).toBe(404);
    expect((await t.api.get(`${FOLD}/ar-sub`, { auth: ADMIN })).status).toBe(404);
  });

  it("a Viewer cannot create alert rules", async () => {
    await t.api.post(FOLD, { auth: ADMIN, body: { metadata: { name: "ar-v" }, spec: { title: "V" } } });
    const viewer = await t.api.user("ar-viewer", "Viewer");
    expect((await t.api.post(RULES, { auth: viewer.auth, body: rule("ar-v", "no") })).status).toBe(403);
  });
});
