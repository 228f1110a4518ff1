// /api/reports (enterprise): list, get, create, update, delete scheduled
// reports (spec "Reporting"; reference §9.4). A report's dashboards must exist
// and be readable by whoever creates or reads it (403 otherwise).
import { type } from "../../../../lib/arktype.ts";
import type { Context } from "hono";
import { ApiError, badRequest } from "../../../../lib/errors.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import type { DashboardAccess } from "../../apis/dashboard-access.ts";
import type { KindContext } from "../../apis/kind.ts";
import { hasPermission } from "../../core/identity/permissions.ts";
import { parseId } from "../../core/identity/orgs.ts";
import {
  emailList, FORMATS, normaliseSchedule, scheduleState, type Report, type ReportBody, type ReportStore,
} from "../../core/content/reports.ts";

const ScheduleIn = type({
  "startDate?": "string | null",
  "endDate?": "string | null",
  frequency: "'once' | 'hourly' | 'daily' | 'weekly' | 'monthly' | 'last' | 'custom'",
  "intervalFrequency?": "'hours' | 'days' | 'weeks' | 'months' | ''",
  "intervalAmount?": "number.integer >= 0",
  // a string in the field table, a boolean in the examples: both are accepted
  "workdaysOnly?": "boolean | 'true' | 'false'",
  "dayOfMonth?": "string",
  "timeZone?": "string",
});
const DashboardIn = type({
  dashboard: { uid: "string > 0" },
  "timeRange?": { "from?": "string", "to?": "string" },
  "reportVariables?": "Record<string, unknown> | null",
});
const ReportIn = type({
  name: "string > 0",
  "recipients?": "string",
  "replyTo?": "string",
  "message?": "string",
  schedule: ScheduleIn,
  "options?": { "orientation?": "'portrait' | 'landscape'", "layout?": "'grid' | 'simple'" },
  "enableDashboardUrl?": "boolean",
  dashboards: DashboardIn.array(),
  "formats?": "('pdf' | 'csv' | 'image')[]",
});

export interface ReportDeps {
  reports: ReportStore;
  dashboards: DashboardAccess;
  now: () => number;
}

const reportId = (c: Context) => parseId(c.req.param("id"), "invalid report id");
const scope = (c: Context) => `reports:id:${c.req.param("id")}`;

export function registerReports(r: Router, deps: ReportDeps): void {
  /** every dashboard of the report exists and the caller may read it (creating or changing a report) */
  const requireDashboards = async (ctx: KindContext, uids: string[]) => {
    for (const uid of uids) {
      const d = await deps.dashboards.get(ctx, uid);
      if (!d || !(await deps.dashboards.canRead(ctx, d))) throw new ApiError(403, `access denied to dashboard "${uid}"`);
    }
  };
  /**
   * the caller may read every dashboard of a stored report that still exists
   * (reading it: the report shows their titles); one deleted since is shown
   * without a title rather than making the report unreadable for everyone
   */
  const readsDashboards = async (ctx: KindContext, report: Report) => {
    for (const { uid } of report.body.dashboards) {
      const d = await deps.dashboards.get(ctx, uid);
      if (d && !(await deps.dashboards.canRead(ctx, d))) return false;
    }
    return true;
  };

  const parse = async (c: Context): Promise<ReportBody> => {
    const body = await parseBody(c, ReportIn);
    if (!body.name.trim()) throw badRequest("name: must not be empty");
    if (!body.dashboards.length) throw badRequest("dashboards: at least one dashboard is required");
    const { workdaysOnly, startDate, endDate, ...schedule } = body.schedule;
    return {
      name: body.name.trim(),
      recipients: emailList(body.recipients ?? "", "recipients", true),
      replyTo: emailList(body.replyTo ?? "", "replyTo", false),
      message: body.message ?? "",
      schedule: normaliseSchedule(
        { ...schedule, startDate: startDate ?? "", endDate: endDate ?? null, workdaysOnly: workdaysOnly === true || workdaysOnly === "true" },
        deps.now(),
      ),
      options: { orientation: body.options?.orientation ?? "landscape", layout: body.options?.layout ?? "grid" },
      enableDashboardUrl: body.enableDashboardUrl ?? true,
      dashboards: body.dashboards.map((d) => ({
        uid: d.dashboard.uid,
        timeRange: { from: d.timeRange?.from ?? "", to: d.timeRange?.to ?? "" },
        reportVariables: d.reportVariables ?? {},
      })),
      // pdf unless told otherwise; each format once, in the order of the spec
      formats: body.formats?.length ? FORMATS.filter((f) => body.formats!.includes(f)) : ["pdf"],
    };
  };

  const render = async (ctx: KindContext, report: Report) => {
    const b = report.body;
    const dashboards = await Promise.all(
      b.dashboards.map(async (d) => {
        const ref = await deps.dashboards.get(ctx, d.uid);
        return { dashboard: { id: ref?.id ?? 0, uid: d.uid, name: ref?.title ?? "" }, timeRange: d.timeRange, reportVariables: d.reportVariables };
      }),
    );
    const { state, nextSendTime } = scheduleState(b.schedule, deps.now());
    return {
      id: report.id,
      userId: report.userId,
      orgId: report.orgId,
      name: b.name,
      recipients: b.recipients,
      replyTo: b.replyTo,
      message: b.message,
      schedule: b.schedule,
      options: b.options,
      enableDashboardUrl: b.enableDashboardUrl,
      state,
      nextSendTime,
      dashboards,
      formats: b.formats,
      created: report.created.toISOString(),
      updated: report.updated.toISOString(),
    };
  };

  r.get("/api/reports", { action: "reports:read" }, async (c) => {
    const ctx = deps.dashboards.context(c);
    const visible: Report[] = [];
    for (const report of await deps.reports.list(ctx.orgId)) {
      // a report on a dashboard the caller cannot read is left out, as GET :id refuses it
      if (!hasPermission(ctx.identity.permissions, "reports:read", [`reports:id:${report.id}`])) continue;
      if (await readsDashboards(ctx, report)) visible.push(report);
    }
    return c.json(await Promise.all(visible.map((x) => render(ctx, x))));
  });

  r.get("/api/reports/:id", { action: "reports:read", scope }, async (c) => {
    const ctx = deps.dashboards.context(c);
    const report = await deps.reports.get(ctx.orgId, reportId(c));
    if (!(await readsDashboards(ctx, report))) throw new ApiError(403, "access denied to a dashboard of this report");
    return c.json(await render(ctx, report));
  });

  r.post("/api/reports", { action: "reports:create" }, async (c) => {
    const body = await parse(c);
    const ctx = deps.dashboards.context(c);
    await requireDashboards(ctx, body.dashboards.map((d) => d.uid));
    const id = await deps.reports.create(ctx.orgId, identityOf(c).user.id, body, new Date(deps.now()));
    return c.json({ id, message: "Report created" });
  }, { body: ReportIn });

  r.put("/api/reports/:id", { action: "reports:write", scope }, async (c) => {
    const id = reportId(c);
    const body = await parse(c);
    const ctx = deps.dashboards.context(c);
    await deps.reports.get(ctx.orgId, id);
    await requireDashboards(ctx, body.dashboards.map((d) => d.uid));
    await deps.reports.update(ctx.orgId, id, body, new Date(deps.now()));
    return c.json({ message: "Report updated" });
  }, { body: ReportIn });

  r.delete("/api/reports/:id", { action: "reports:delete", scope }, async (c) => {
    await deps.reports.delete(identityOf(c).orgId, reportId(c));
    return c.json({ message: "Report config was removed" });
  });
}
