// Annotations in the database: one row per annotation (a region is one row
// with time and timeEnd), queried by overlap with a time window, newest first
// (reference §2). Which rows a caller may see is decided by the caller and
// passed in as a filter, so LIMIT counts only visible rows.
import type { Sql } from "../../../../db/sql.ts";
import { notFound } from "../../../../lib/errors.ts";

export interface AnnotationRow {
  id: number;
  orgId: number;
  alertId: number;
  dashboardUID: string | null;
  dashboardId: number;
  panelId: number;
  userId: number;
  newState: string;
  prevState: string;
  time: number;
  timeEnd: number;
  text: string;
  tags: string[];
  data: Record<string, unknown>;
  created: number;
  updated: number;
}

export interface NewAnnotation {
  dashboardUID: string | null;
  dashboardId: number;
  panelId: number;
  userId: number;
  time: number;
  timeEnd: number;
  text: string;
  tags: string[];
  data: Record<string, unknown>;
}

export interface AnnotationQuery {
  from?: number | undefined;
  to?: number | undefined;
  limit: number;
  alertId?: number | undefined;
  dashboardUID?: string | undefined;
  panelId?: number | undefined;
  userId?: number | undefined;
  type?: "alert" | "annotation" | undefined;
  tags: string[];
  matchAny: boolean;
  /** organization annotations visible to the caller */
  orgVisible: boolean;
  /** dashboards whose annotations the caller may see (only these, or all but these); undefined: all of them */
  dashboards?: { only: string[] } | { except: string[] } | undefined;
}

export type AnnotationChange = Partial<Pick<AnnotationRow, "time" | "timeEnd" | "text" | "tags" | "data">>;

const COLUMNS = `id, org_id, alert_id, dashboard_uid, dashboard_id, panel_id, user_id, new_state, prev_state,
  epoch, epoch_end, text, tags, data, created, updated`;

function toRow(r: Record<string, unknown>): AnnotationRow {
  return {
    id: Number(r.id),
    orgId: Number(r.org_id),
    alertId: Number(r.alert_id),
    dashboardUID: (r.dashboard_uid as string | null) ?? null,
    dashboardId: Number(r.dashboard_id),
    panelId: Number(r.panel_id),
    userId: Number(r.user_id),
    newState: String(r.new_state),
    prevState: String(r.prev_state),
    time: Number(r.epoch),
    timeEnd: Number(r.epoch_end),
    text: String(r.text),
    tags: r.tags as string[],
    data: r.data as Record<string, unknown>,
    created: Number(r.created),
    updated: Number(r.updated),
  };
}

/** a region is stored with time <= timeEnd; an end before the start is swapped (reference §2.2) */
export function orderedSpan(time: number, timeEnd: number): [number, number] {
  return timeEnd < time ? [timeEnd, time] : [time, timeEnd];
}

export interface AnnotationStore {
  /** another node changed the table: what is held is read again at next use */
  invalidate(): void;
  create(orgId: number, a: NewAnnotation): Promise<number>;
  get(orgId: number, id: number): Promise<AnnotationRow>;
  find(orgId: number, q: AnnotationQuery): Promise<AnnotationRow[]>;
  update(orgId: number, id: number, change: AnnotationChange): Promise<void>;
  delete(orgId: number, id: number): Promise<void>;
  /** tags starting with `prefix` and how many annotations carry each, by tag */
  tags(orgId: number, prefix: string, limit: number): Promise<Array<{ tag: string; count: number }>>;
  /** removes the annotations of dashboards (of one panel when given) */
  deleteForDashboards(orgId: number, dashboardUids: string[], panelId?: number): Promise<void>;
}

export function createAnnotationStore(pg: Sql, now: () => number): AnnotationStore {
  // the longest region per organization bounds an overlap query's index range;
  // it only grows while the server runs (a conservative bound stays correct)
  const spans = new Map<number, Promise<number>>();
  const longest = (orgId: number) => {
    let s = spans.get(orgId);
    if (!s) {
      s = pg
        .query<{ s: string }>("select coalesce(max(epoch_end - epoch), 0)::text as s from annotations where org_id = $1", [orgId])
        .then((r) => Number(r.rows[0]!.s));
      s.catch(() => spans.delete(orgId));
      spans.set(orgId, s);
    }
    return s;
  };
  const widen = async (orgId: number, span: number) => {
    const current = await longest(orgId);
    if (span > current) spans.set(orgId, Promise.resolve(span));
  };

  return {
    // the longest span of each organization: another node may have written a longer one
    invalidate: () => spans.clear(),
    async create(orgId, a) {
      const t = now();
      const r = await pg.query<{ id: number }>(
        `insert into annotations (org_id, dashboard_uid, dashboard_id, panel_id, user_id, epoch, epoch_end, text, tags, data, created, updated)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) returning id`,
        [orgId, a.dashboardUID, a.dashboardId, a.panelId, a.userId, a.time, a.timeEnd, a.text, a.tags, a.data, t],
      );
      // widened only once stored: a failed write must not change the bound
      await widen(orgId, a.timeEnd - a.time);
      return r.rows[0]!.id;
    },
    async get(orgId, id) {
      const r = await pg.query<Record<string, unknown>>(`select ${COLUMNS} from annotations where org_id = $1 and id = $2`, [orgId, id]);
      if (!r.rows.length) throw notFound("Annotation not found");
      return toRow(r.rows[0]!);
    },
    async find(orgId, q) {
      if (!q.orgVisible && q.dashboards && "only" in q.dashboards && q.dashboards.only.length === 0) return [];
      const where = ["org_id = $1"];
      const params: unknown[] = [orgId];
      const param = (v: unknown) => {
        params.push(v);
        return `$${params.length}`;
      };
      // the time filter applies only when both ends are given (reference §2.1)
      if (q.from !== undefined && q.to !== undefined && q.from > 0 && q.to > 0) {
        const to = param(q.to);
        where.push(`epoch_end >= ${param(q.from)}`, `epoch <= ${to}`, `epoch_end <= ${to}::bigint + ${param(await longest(orgId))}::bigint`);
      }
      if (q.alertId !== undefined) where.push(`alert_id = ${param(q.alertId)}`);
      if (q.dashboardUID !== undefined) where.push(`dashboard_uid = ${param(q.dashboardUID)}`);
      if (q.panelId !== undefined) where.push(`panel_id = ${param(q.panelId)}`);
      if (q.userId !== undefined) where.push(`user_id = ${param(q.userId)}`);
      if (q.type === "alert") where.push("alert_id > 0");
      if (q.type === "annotation") where.push("alert_id = 0");
      if (q.tags.length) where.push(`tags ${q.matchAny ? "&&" : "@>"} ${param(q.tags)}::text[]`);
      if (q.dashboards !== undefined) {
        // the shorter list goes to the database: the few a Viewer may not see, or the few they may
        const dashboards = "only" in q.dashboards
          ? `dashboard_uid = any(${param(q.dashboards.only)}::text[])`
          : `not (dashboard_uid = any(${param(q.dashboards.except)}::text[]))`;
        where.push(q.orgVisible ? `(dashboard_uid is null or ${dashboards})` : `(dashboard_uid is not null and ${dashboards})`);
      } else if (!q.orgVisible) {
        where.push("dashboard_uid is not null");
      }
      const r = await pg.query<Record<string, unknown>>(
        `select ${COLUMNS} from annotations where ${where.join(" and ")} order by epoch_end desc, epoch desc limit ${param(q.limit)}`,
        params,
      );
      return r.rows.map(toRow);
    },
    async update(orgId, id, change) {
      const current = await this.get(orgId, id);
      const [time, timeEnd] = orderedSpan(change.time ?? current.time, change.timeEnd ?? current.timeEnd);
      await pg.query(
        `update annotations set epoch = $3, epoch_end = $4, text = $5, tags = $6, data = $7, updated = $8
          where org_id = $1 and id = $2`,
        [orgId, id, time, timeEnd, change.text ?? current.text, change.tags ?? current.tags, change.data ?? current.data, now()],
      );
      await widen(orgId, timeEnd - time);
    },
    async delete(orgId, id) {
      const r = await pg.query("delete from annotations where org_id = $1 and id = $2", [orgId, id]);
      if (!r.affectedRows) throw notFound("Annotation not found");
    },
    async tags(orgId, prefix, limit) {
      const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
      const r = await pg.query<{ tag: string; count: number }>(
        "select tag, count from annotation_tags where org_id = $1 and tag like $2 order by tag limit $3",
        [orgId, `${escaped}%`, limit],
      );
      return r.rows;
    },
    async deleteForDashboards(orgId, dashboardUids, panelId) {
      if (!dashboardUids.length) return;
      await pg.query(
        "delete from annotations where org_id = $1 and dashboard_uid = any($2::text[]) and ($3::bigint is null or panel_id = $3)",
        [orgId, dashboardUids, panelId ?? null],
      );
    },
  };
}
