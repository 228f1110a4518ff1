// /api/reports (enterprise): scheduled reports (spec "Report (enterprise)",
// "Reporting"; reference §9.4, conformance checks 196-198).
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN, bearer } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

const DASH = "/apis/dashboard.svc.app/v1/namespaces/default/dashboards";

/** a valid report body for dashboard `uid`; `patch` replaces top-level fields, `schedule` merges */
function report(uid: string, patch: Record<string, unknown> = {}, schedule: Record<string, unknown> = {}) {
  return {
    name: "Weekly ops",
    recipients: "ops@example.test, lead@example.test",
    replyTo: "noreply@example.test",
    message: "Here is the report",
    schedule: { startDate: "2099-01-05T09:00:00Z", endDate: null, frequency: "weekly", timeZone: "UTC", ...schedule },
    enableDashboardUrl: true,
    dashboards: [{ dashboard: { uid }, timeRange: { from: "now-7d", to: "now" }, reportVariables: {} }],
    ...patch,
  };
}

describe("reports", () => {
  const t = useServer({ "server.edition": "enterprise" });
  let dashId = 0;

  // the dashboards reported on (after useServer's beforeAll, which starts the server)
  beforeAll(async () => {
    for (const [name, title] of [["rep-dash", "Ops Overview"], ["rep-dash-2", "Second"]]) {
      const d = await t.api.post(DASH, { auth: ADMIN, body: { metadata: { name }, spec: { title } } });
      if (d.status !== 201) throw new Error(`creating dashboard ${name}: ${d.status} ${JSON.stringify(d.body)}`);
    }
    dashId = (await t.api.get("/api/search?dashboardUIDs=rep-dash", { auth: ADMIN })).body[0]?.id ?? 0;
  });

  it("POST /api/reports (valid body) -> 200 {id, message: Report created}", async () => {
    const r = await t.api.post("/api/reports", { auth: ADMIN, body: report("rep-dash") });
    expect(r.status).toBe(200);
    expect(Number.isInteger(r.body.id)).toBe(true);
    expect(r.body.message).toBe("Report created");
  });

  it("GET /api/reports/:id -> the report with schedule, defaults, state scheduled and the dashboard's id and title", async () => {
    const created = await t.api.post("/api/reports", { auth: ADMIN, body: report("rep-dash", { name: "Shown" }) });
    const id = created.body.id as number;
    const r = await t.api.get(`/api/reports/${id}`, { auth: ADMIN });
    expect(r.status).toBe(200);
    const b = r.body;
    expect(dashId).toBeGreaterThan(0);
    expect(b.id).toBe(id);
    expect(b.orgId).toBe(1);
    expect(typeof b.userId).toBe("number");
    expect(b.name).toBe("Shown");
    expect(b.recipients).toBe("ops@example.test, lead@example.test");
    expect(b.replyTo).toBe("noreply@example.test");
    expect(b.message).toBe("Here is the report");
    expect(b.schedule).toMatchObject({ startDate: "2099-01-05T09:00:00Z", endDate: null, frequency: "weekly", timeZone: "UTC", workdaysOnly: false });
    expect(b.options).toEqual({ orientation: "landscape", layout: "grid" });
    expect(b.formats).toEqual(["pdf"]);
    expect(b.enableDashboardUrl).toBe(true);
    expect(b.state).toBe("scheduled");
    expect(b.nextSendTime).toBe("2099-01-05T09:00:00.000Z");
    expect(b.dashboards).toEqual([
      { dashboard: { id: dashId, uid: "rep-dash", name: "Ops Overview" }, timeRange: { from: "now-7d", to: "now" }, reportVariables: {} },
    ]);
    expect(Number.isNaN(Date.parse(b.created))).toBe(false);
    expect(Number.isNaN(Date.parse(b.updated))).toBe(false);

    const list = await t.api.get("/api/reports", { auth: ADMIN });
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    const listed = list.body.find((x: { id: number }) => x.id === id);
    expect(listed).toEqual(b);
  });

  it("POST /api/reports (frequency once, past startDate) -> state expired, nextSendTime null", async () => {
    const created = await t.api.post("/api/reports", {
      auth: ADMIN,
      body: report("rep-dash", { name: "Once" }, { frequency: "once", startDate: "2001-02-03T04:05:06Z" }),
    });
    expect(created.status).toBe(200);
    const r = await t.api.get(`/api/reports/${created.body.id}`, { auth: ADMIN });
    expect(r.body.state).toBe("expired");
    expect(r.body.nextSendTime).toBeNull();
  });

  it("POST /api/reports with options, formats and a custom schedule -> stored as given", async () => {
    const created = await t.api.post("/api/reports", {
      auth: ADMIN,
      body: report(
        "rep-dash",
        { options: { orientation: "portrait", layout: "simple" }, formats: ["image", "csv", "pdf"], enableDashboardUrl: false },
        { frequency: "custom", intervalFrequency: "days", intervalAmount: 3 },
      ),
    });
    expect(created.status).toBe(200);
    const b = (await t.api.get(`/api/reports/${created.body.id}`, { auth: ADMIN })).body;
    expect(b.options).toEqual({ orientation: "portrait", layout: "simple" });
    expect(b.formats.slice().sort()).toEqual(["csv", "image", "pdf"]);
    expect(b.enableDashboardUrl).toBe(false);
    expect(b.schedule).toMatchObject({ frequency: "custom", intervalFrequency: "days", intervalAmount: 3 });
  });

  it("POST /api/reports (schedule in a zone, monthly on the last day) -> nextSendTime follows the schedule", async () => {
    const zoned = await t.api.post("/api/reports", {
      auth: ADMIN,
      body: report("rep-dash", {}, { frequency: "daily", startDate: "2099-01-05T09:00:00", timeZone: "America/New_York" }),
    });
    expect(zoned.status).toBe(200);
    expect((await t.api.get(`/api/reports/${zoned.body.id}`, { auth: ADMIN })).body.nextSendTime).toBe("2099-01-05T14:00:00.000Z");
    const last = await t.api.post("/api/reports", { auth: ADMIN, body: report("rep-dash", {}, { frequency: "monthly", dayOfMonth: "last" }) });
    expect(last.status).toBe(200);
    const b = (await t.api.get(`/api/reports/${last.body.id}`, { auth: ADMIN })).body;
    expect(b.schedule.dayOfMonth).toBe("last");
    expect(b.nextSendTime).toBe("2099-01-31T09:00:00.000Z");
    const lastFreq = await t.api.post("/api/reports", { auth: ADMIN, body: report("rep-dash", {}, { frequency: "last" }) });
    expect((await t.api.get(`/api/reports/${lastFreq.body.id}`, { auth: ADMIN })).body.nextSendTime).toBe("2099-01-31T09:00:00.000Z");
    // a daily schedule whose endDate has passed
    const ended = await t.api.post("/api/reports", {
      auth: ADMIN,
      body: report("rep-dash", {}, { frequency: "daily", startDate: "2001-01-01T09:00:00Z", endDate: "2001-02-01T09:00:00Z" }),
    });
    const e = (await t.api.get(`/api/reports/${ended.body.id}`, { auth: ADMIN })).body;
    expect([e.state, e.nextSendTime]).toEqual(["expired", null]);
  });

  it("POST /api/reports (workdaysOnly true, \"true\" or \"false\") -> accepted; ignored for weekly", async () => {
    const daily = await t.api.post("/api/reports", { auth: ADMIN, body: report("rep-dash", {}, { frequency: "daily", workdaysOnly: true }) });
    expect(daily.status).toBe(200);
    expect((await t.api.get(`/api/reports/${daily.body.id}`, { auth: ADMIN })).body.schedule.workdaysOnly).toBe(true);
    const asString = await t.api.post("/api/reports", { auth: ADMIN, body: report("rep-dash", {}, { frequency: "hourly", workdaysOnly: "true" }) });
    expect(asString.status).toBe(200);
    expect((await t.api.get(`/api/reports/${asString.body.id}`, { auth: ADMIN })).body.schedule.workdaysOnly).toBe(true);
    const no = await t.api.post("/api/reports", { auth: ADMIN, body: report("rep-dash", {}, { frequency: "daily", workdaysOnly: "false" }) });
    expect(no.status).toBe(200);
    expect((await t.api.get(`/api/reports/${no.body.id}`, { auth: ADMIN })).body.schedule.workdaysOnly).toBe(false);
    const weekly = await t.api.post("/api/reports", { auth: ADMIN, body: report("rep-dash", {}, { frequency: "weekly", workdaysOnly: true }) });
    expect(weekly.status).toBe(200);
    expect((await t.api.get(`/api/reports/${weekly.body.id}`, { auth: ADMIN })).body.schedule.workdaysOnly).toBe(false);
  });

  it("POST /api/reports {name, schedule: {frequency: sometimes}} -> 400 with a message", async () => {
    const r = await t.api.post("/api/reports", { auth: ADMIN, body: { name: "r", schedule: { frequency: "sometimes" } } });
    expect(r.status).toBe(400);
    expect(typeof r.body.message).toBe("string");
    expect(r.body.message.length).toBeGreaterThan(0);
  });

  it("POST /api/reports (invalid fields) -> 400 with a message", async () => {
    const cases: Array<[string, unknown]> = [
      ["bad frequency", report("rep-dash", {}, { frequency: "sometimes" })],
      ["custom without intervalFrequency", report("rep-dash", {}, { frequency: "custom", intervalAmount: 2 })],
      ["custom without intervalAmount", report("rep-dash", {}, { frequency: "custom", intervalFrequency: "hours" })],
      ["invalid recipient", report("rep-dash", { recipients: "ops@example.test, not-an-email" })],
      ["no recipients", report("rep-dash", { recipients: "" })],
      ["invalid replyTo", report("rep-dash", { replyTo: "nobody" })],
      ["bad format", report("rep-dash", { formats: ["docx"] })],
      ["bad orientation", report("rep-dash", { options: { orientation: "diagonal" } })],
      ["bad layout", report("rep-dash", { options: { layout: "stacked" } })],
      ["invalid timeZone", report("rep-dash", {}, { timeZone: "Mars/Base" })],
      ["endDate before startDate", report("rep-dash", {}, { startDate: "2099-02-01T00:00:00Z", endDate: "2099-01-01T00:00:00Z" })],
      ["bad startDate", report("rep-dash", {}, { startDate: "next tuesday" })],
      // Date.parse reads these, the schedule cannot: they once made GET (and the whole list) a 500
      ["startDate not RFC 3339", report("rep-dash", {}, { startDate: "January 5, 2099" })],
      ["startDate with slashes", report("rep-dash", {}, { startDate: "2099/01/05" })],
      ["bad endDate", report("rep-dash", {}, { endDate: "soon" })],
      // 09:00 in New York is 14:00 UTC: the end, 12:00 UTC, is before it
      ["endDate before a zoned startDate", report("rep-dash", {}, { startDate: "2099-01-05T09:00:00", endDate: "2099-01-05T12:00:00Z", timeZone: "America/New_York" })],
      ["intervalAmount beyond the calendar", report("rep-dash", {}, { frequency: "custom", intervalFrequency: "months", intervalAmount: 1e9 })],
      ["intervalAmount 0", report("rep-dash", {}, { frequency: "custom", intervalFrequency: "hours", intervalAmount: 0 })],
      ["workdaysOnly yes", report("rep-dash", {}, { frequency: "daily", workdaysOnly: "yes" })],
      ["dayOfMonth 32", report("rep-dash", {}, { frequency: "monthly", dayOfMonth: "32" })],
      ["no dashboards", report("rep-dash", { dashboards: [] })],
      ["missing dashboards", { ...report("rep-dash"), dashboards: undefined }],
      ["missing name", report("rep-dash", { name: "" })],
      ["invalid JSON", "{not json"],
    ];
    for (const [what, body] of cases) {
      const r = await t.api.post("/api/reports", { auth: ADMIN, body });
      expect({ what, status: r.status }).toEqual({ what, status: 400 });
      expect({ what, message: typeof r.body?.message }).toEqual({ what, message: "string" });
    }
  });

  it("POST /api/reports (unknown dashboard uid) -> 403", async () => {
    const r = await t.api.post("/api/reports", { auth: ADMIN, body: report("rep-no-such-dash") });
    expect(r.status).toBe(403);
    expect(typeof r.body.message).toBe("string");
  });

  it("POST /api/reports (Admin of org 2, an org-1 dashboard uid) -> 403", async () => {
    const org = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Reports Org Two" } });
    const orgId = org.body.orgId as number;
    const admin2 = await t.api.user("rep-admin-2", "Admin", orgId);
    const headers = { "X-Svc-Org-Id": String(orgId) };
    const r = await t.api.post("/api/reports", { auth: admin2.auth, headers, body: report("rep-dash") });
    expect(r.status).toBe(403);
    // and org 1's reports are not listed in org 2
    const list = await t.api.get("/api/reports", { auth: admin2.auth, headers });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
    const ours = await t.api.post("/api/reports", { auth: ADMIN, body: report("rep-dash") });
    expect((await t.api.get(`/api/reports/${ours.body.id}`, { auth: admin2.auth, headers })).status).toBe(404);
    expect((await t.api.delete(`/api/reports/${ours.body.id}`, { auth: admin2.auth, headers })).status).toBe(404);
  });

  it("a caller with report permissions but no access to the dashboard -> 403 on POST and GET :id, report not listed", async () => {
    const user = await t.api.user("rep-no-dash", "None");
    const role = await t.api.post("/api/access-control/roles", {
      auth: ADMIN,
      body: { name: "custom:reporter", permissions: [{ action: "reports:read", scope: "reports:*" }, { action: "reports:create" }] },
    });
    expect(role.status).toBe(200);
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "reporters" } });
    await t.api.post(`/api/teams/${team.body.teamId}/members`, { auth: ADMIN, body: { userId: user.id } });
    const assigned = await t.api.post(`/api/access-control/teams/${team.body.teamId}/roles`, { auth: ADMIN, body: { roleUid: role.body.uid } });
    expect(assigned.status).toBe(200);

    expect((await t.api.post("/api/reports", { auth: user.auth, body: report("rep-dash") })).status).toBe(403);
    const theirs = await t.api.post("/api/reports", { auth: ADMIN, body: report("rep-dash", { name: "Secret" }) });
    expect((await t.api.get(`/api/reports/${theirs.body.id}`, { auth: user.auth })).status).toBe(403);
    const list = await t.api.get("/api/reports", { auth: user.auth });
    expect(list.status).toBe(200);
    // a report on a dashboard the caller cannot read would leak its title
    expect(list.body.some((x: { id: number }) => x.id === theirs.body.id)).toBe(false);
  });

  it("a report whose dashboard was deleted since -> still readable, the dashboard without a title", async () => {
    await t.api.post(DASH, { auth: ADMIN, body: { metadata: { name: "rep-doomed" }, spec: { title: "Doomed" } } });
    const created = await t.api.post("/api/reports", { auth: ADMIN, body: report("rep-doomed") });
    expect(created.status).toBe(200);
    expect((await t.api.delete(`${DASH}/rep-doomed`, { auth: ADMIN })).status).toBe(200);
    const r = await t.api.get(`/api/reports/${created.body.id}`, { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body.dashboards[0].dashboard).toEqual({ id: 0, uid: "rep-doomed", name: "" });
    const list = await t.api.get("/api/reports", { auth: ADMIN });
    expect(list.body.some((x: { id: number }) => x.id === created.body.id)).toBe(true);
    // changing it needs dashboards that exist
    expect((await t.api.put(`/api/reports/${created.body.id}`, { auth: ADMIN, body: report("rep-doomed") })).status).toBe(403);
  });

  it("POST /api/reports (service account token, Admin role) -> 200; the report names the service account as its user", async () => {
    const sa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "rep-sa", role: "Admin" } });
    expect(sa.status).toBe(201);
    const saId = sa.body.id as number;
    const key = (await t.api.post(`/api/serviceaccounts/${saId}/tokens`, { auth: ADMIN, body: { name: "rep-sa-token" } })).body.key as string;
    const created = await t.api.post("/api/reports", { auth: bearer(key), body: report("rep-dash", { name: "By SA" }) });
    expect(created.status).toBe(200);
    const r = await t.api.get(`/api/reports/${created.body.id}`, { auth: bearer(key) });
    expect(r.status).toBe(200);
    expect(r.body.userId).toBe(saId);
  });

  it("PUT /api/reports/:id -> 200 Report updated; the change shows", async () => {
    const created = await t.api.post("/api/reports", { auth: ADMIN, body: report("rep-dash") });
    const id = created.body.id as number;
    const r = await t.api.put(`/api/reports/${id}`, {
      auth: ADMIN,
      body: report("rep-dash-2", { name: "Renamed", recipients: "new@example.test", formats: ["csv"] }, { frequency: "monthly", dayOfMonth: "15" }),
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: "Report updated" });
    const b = (await t.api.get(`/api/reports/${id}`, { auth: ADMIN })).body;
    expect(b.name).toBe("Renamed");
    expect(b.recipients).toBe("new@example.test");
    expect(b.formats).toEqual(["csv"]);
    expect(b.schedule).toMatchObject({ frequency: "monthly", dayOfMonth: "15" });
    expect(b.dashboards[0].dashboard).toMatchObject({ uid: "rep-dash-2", name: "Second" });
    expect(b.nextSendTime).toBe("2099-01-15T09:00:00.000Z");
    expect(Date.parse(b.updated)).toBeGreaterThanOrEqual(Date.parse(b.created));
    // invalid body, unknown id, bad id
    expect((await t.api.put(`/api/reports/${id}`, { auth: ADMIN, body: report("rep-dash", {}, { frequency: "sometimes" }) })).status).toBe(400);
    expect((await t.api.put("/api/reports/99999", { auth: ADMIN, body: report("rep-dash") })).status).toBe(404);
    expect((await t.api.put("/api/reports/abc", { auth: ADMIN, body: report("rep-dash") })).status).toBe(400);
  });

  it("DELETE /api/reports/:id -> 200 Report config was removed; then GET -> 404", async () => {
    const created = await t.api.post("/api/reports", { auth: ADMIN, body: report("rep-dash") });
    const id = created.body.id as number;
    const r = await t.api.delete(`/api/reports/${id}`, { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: "Report config was removed" });
    const gone = await t.api.get(`/api/reports/${id}`, { auth: ADMIN });
    expect(gone.status).toBe(404);
    expect(typeof gone.body.message).toBe("string");
    expect((await t.api.delete(`/api/reports/${id}`, { auth: ADMIN })).status).toBe(404);
  });

  it("GET /api/reports/abc -> 400; GET /api/reports/999999 -> 404", async () => {
    expect((await t.api.get("/api/reports/abc", { auth: ADMIN })).status).toBe(400);
    expect((await t.api.get("/api/reports/999999", { auth: ADMIN })).status).toBe(404);
  });

  it("/api/reports (editor, viewer) -> 403", async () => {
    const created = await t.api.post("/api/reports", { auth: ADMIN, body: report("rep-dash") });
    const id = created.body.id as number;
    for (const role of ["Editor", "Viewer"] as const) {
      const u = await t.api.user(`rep-${role.toLowerCase()}`, role);
      expect((await t.api.get("/api/reports", { auth: u.auth })).status).toBe(403);
      expect((await t.api.get(`/api/reports/${id}`, { auth: u.auth })).status).toBe(403);
      expect((await t.api.post("/api/reports", { auth: u.auth, body: report("rep-dash") })).status).toBe(403);
      expect((await t.api.put(`/api/reports/${id}`, { auth: u.auth, body: report("rep-dash") })).status).toBe(403);
      expect((await t.api.delete(`/api/reports/${id}`, { auth: u.auth })).status).toBe(403);
    }
    expect((await t.api.get("/api/reports")).status).toBe(401);
  });
});

describe("reports (oss edition)", () => {
  const t = useServer();

  it("GET /api/reports (oss) -> 404", async () => {
    expect((await t.api.get("/api/reports", { auth: ADMIN })).status).toBe(404);
    expect((await t.api.post("/api/reports", { auth: ADMIN, body: {} })).status).toBe(404);
  });
});
