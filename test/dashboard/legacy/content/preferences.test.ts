import { describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

const DASHBOARDS = "/apis/dashboard.svc.app/v1/namespaces/default/dashboards";
const FOLDERS = "/apis/folder.svc.app/v1/namespaces/default/folders";

describe("preferences", () => {
  const t = useServer();

  it("a fresh user has {}; PUT -> 200 {message} typed text/plain; GET shows what was set", async () => {
    const u = await t.api.user("prefs-fresh", "Viewer");
    const fresh = await t.api.get("/api/user/preferences", { auth: u.auth });
    expect(fresh.status).toBe(200);
    expect(fresh.body).toEqual({});
    const put = await t.api.put("/api/user/preferences", { auth: u.auth, body: { theme: "dark", timezone: "utc", navbar: { bookmarkUrls: ["/d/x"] }, queryHistory: { homeTab: "starred" } } });
    expect(put.status).toBe(200);
    expect(put.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(put.body).toEqual({ message: "Preferences updated" });
    expect((await t.api.get("/api/user/preferences", { auth: u.auth })).body).toEqual({
      theme: "dark", timezone: "utc", navbar: { bookmarkUrls: ["/d/x"] }, queryHistory: { homeTab: "starred" },
    });
  });

  it("PUT resets omitted keys; PATCH changes only the keys sent", async () => {
    const u = await t.api.user("prefs-reset", "Viewer");
    await t.api.put("/api/user/preferences", { auth: u.auth, body: { theme: "dark", timezone: "Europe/Paris" } });
    const patch = await t.api.patch("/api/user/preferences", { auth: u.auth, body: { weekStart: "monday" } });
    expect(patch.status).toBe(200);
    expect(patch.headers.get("content-type")).toMatch(/^text\/plain/);
    expect((await t.api.get("/api/user/preferences", { auth: u.auth })).body).toEqual({ theme: "dark", timezone: "Europe/Paris", weekStart: "monday" });
    await t.api.put("/api/user/preferences", { auth: u.auth, body: { weekStart: "monday" } });
    expect((await t.api.get("/api/user/preferences", { auth: u.auth })).body).toEqual({ weekStart: "monday" });
    await t.api.patch("/api/user/preferences", { auth: u.auth, body: { weekStart: "" } });
    expect((await t.api.get("/api/user/preferences", { auth: u.auth })).body).toEqual({});
  });

  it("validation: theme, timezone (IANA, utc, browser, empty), weekStart, types", async () => {
    const u = await t.api.user("prefs-bad", "Viewer");
    const theme = await t.api.put("/api/user/preferences", { auth: u.auth, body: { theme: "neon" } });
    expect(theme.status).toBe(400);
    expect(theme.body.message).toBe("Invalid theme");
    const zone = await t.api.put("/api/user/preferences", { auth: u.auth, body: { timezone: "Not/AZone" } });
    expect(zone.status).toBe(400);
    expect(zone.body.message).toBe("Invalid timezone");
    for (const timezone of ["browser", "utc", "", "America/New_York"]) {
      expect((await t.api.patch("/api/user/preferences", { auth: u.auth, body: { timezone } })).status).toBe(200);
    }
    expect((await t.api.put("/api/user/preferences", { auth: u.auth, body: { weekStart: "friday" } })).status).toBe(400);
    const wrongType = await t.api.put("/api/user/preferences", { auth: u.auth, body: { navbar: { bookmarkUrls: "x" } } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message).toContain("bookmarkUrls");
    expect((await t.api.put("/api/user/preferences", { auth: u.auth, body: "{" })).status).toBe(400);
  });

  it("homeDashboardUID must name a dashboard the caller can read; homeDashboardId is accepted and shown", async () => {
    const missing = await t.api.put("/api/user/preferences", { auth: ADMIN, body: { homeDashboardUID: "missing" } });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe("Dashboard not found");
    const d = await t.api.post(DASHBOARDS, { auth: ADMIN, body: { metadata: { name: "home-dash" }, spec: { title: "Home" } } });
    const id = Number(d.body.metadata.labels["svc.app/deprecatedInternalID"]);
    expect((await t.api.put("/api/user/preferences", { auth: ADMIN, body: { homeDashboardUID: "home-dash" } })).status).toBe(200);
    expect((await t.api.get("/api/user/preferences", { auth: ADMIN })).body).toEqual({ homeDashboardUID: "home-dash", homeDashboardId: id });
    await t.api.put("/api/user/preferences", { auth: ADMIN, body: {} });
    expect((await t.api.put("/api/user/preferences", { auth: ADMIN, body: { homeDashboardId: id } })).status).toBe(200);
    expect((await t.api.get("/api/user/preferences", { auth: ADMIN })).body.homeDashboardUID).toBe("home-dash");
    expect((await t.api.put("/api/user/preferences", { auth: ADMIN, body: { homeDashboardId: 999999 } })).status).toBe(404);
    // a dashboard in a folder a None-role user cannot read is "not found" to them
    await t.api.post(FOLDERS, { auth: ADMIN, body: { metadata: { name: "home-f" }, spec: { title: "F" } } });
    await t.api.post(DASHBOARDS, { auth: ADMIN, body: { metadata: { name: "hidden-home", annotations: { "svc.app/folder": "home-f" } }, spec: { title: "H" } } });
    const none = await t.api.user("prefs-none", "None");
    expect((await t.api.put("/api/user/preferences", { auth: none.auth, body: { homeDashboardUID: "hidden-home" } })).status).toBe(404);
  });

  it("org preferences: an Admin writes them, a Viewer cannot", async () => {
    const viewer = await t.api.user("prefs-org-viewer", "Viewer");
    expect((await t.api.get("/api/org/preferences", { auth: viewer.auth })).status).toBe(403);
    expect((await t.api.put("/api/org/preferences", { auth: viewer.auth, body: { theme: "light" } })).status).toBe(403);
    const put = await t.api.put("/api/org/preferences", { auth: ADMIN, body: { theme: "light", weekStart: "sunday" } });
    expect(put.status).toBe(200);
    expect((await t.api.get("/api/org/preferences", { auth: ADMIN })).body).toEqual({ theme: "light", weekStart: "sunday" });
    await t.api.patch("/api/org/preferences", { auth: ADMIN, body: { timezone: "utc" } });
    expect((await t.api.get("/api/org/preferences", { auth: ADMIN })).body).toEqual({ theme: "light", weekStart: "sunday", timezone: "utc" });
  });

  it("team preferences; unknown team -> 404; effective theme resolves user, then team, then org", async () => {
    await t.api.put("/api/org/preferences", { auth: ADMIN, body: { theme: "light" } });
    const u = await t.api.user("prefs-effective", "Viewer");
    expect((await t.api.get("/api/user", { auth: u.auth })).body.theme).toBe("light");
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "Prefs Team" } });
    const teamPath = `/api/teams/${team.body.teamId}/preferences`;
    await t.api.post(`/api/teams/${team.body.teamId}/members`, { auth: ADMIN, body: { userId: u.id } });
    expect((await t.api.put(teamPath, { auth: ADMIN, body: { theme: "dark" } })).status).toBe(200);
    expect((await t.api.get(teamPath, { auth: ADMIN })).body).toEqual({ theme: "dark" });
    expect((await t.api.get("/api/user", { auth: u.auth })).body.theme).toBe("dark");
    await t.api.put("/api/user/preferences", { auth: u.auth, body: { theme: "light" } });
    expect((await t.api.get("/api/user", { auth: u.auth })).body.theme).toBe("light");
    expect((await t.api.get("/api/teams/999999/preferences", { auth: ADMIN })).status).toBe(404);
    expect((await t.api.get("/api/teams/abc/preferences", { auth: ADMIN })).status).toBe(400);
    expect((await t.api.put(teamPath, { auth: u.auth, body: { theme: "dark" } })).status).toBe(403);
  });
});
