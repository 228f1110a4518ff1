// Library elements (panels shared between dashboards) and their connections
// to the dashboards that use them (spec "Library element"; messages from
// reference §5). Each organization's elements are kept in memory with their
// connection counts and reloaded after a write to them (DESIGN rule 7).
import type { Sql } from "../../../../db/sql.ts";
import { ApiError, badRequest, notFound } from "../../../../lib/errors.ts";
import { newUid } from "../../../../lib/ids.ts";

export interface LibraryElement {
  id: number;
  orgId: number;
  uid: string;
  folderUid: string;
  name: string;
  kind: number;
  type: string;
  description: string;
  model: Record<string, unknown>;
  version: number;
  created: Date;
  createdBy: number;
  updated: Date;
  updatedBy: number;
  connectedDashboards: number;
}

export interface Connection {
  id: number;
  elementId: number;
  dashboardUid: string;
  dashboardId: number;
  created: Date;
  createdBy: number;
}

export interface ElementInput {
  uid?: string | undefined;
  folderUid: string;
  name: string;
  kind: number;
  model: Record<string, unknown>;
}

export const KINDS = [1, 2];
export const MAX_UID_LENGTH = 40;

export const notFoundError = () => notFound("library element could not be found");
const exists = () => badRequest("library element with that name or UID already exists");

export function checkUid(uid: string): void {
  if (uid.length > MAX_UID_LENGTH) throw badRequest("uid too long, max 40 characters");
  if (!/^[a-zA-Z0-9_-]+$/.test(uid)) throw badRequest("uid contains illegal characters");
}

export function checkKind(kind: number): void {
  if (!KINDS.includes(kind)) throw badRequest("the element kind is not supported");
}

/** type and description come from the model, as the real product reads them */
function fromModel(model: Record<string, unknown>) {
  return {
    type: typeof model.type === "string" ? model.type : "",
    description: typeof model.description === "string" ? model.description : "",
  };
}

function toElement(r: Record<string, unknown>): LibraryElement {
  return {
    id: Number(r.id),
    orgId: Number(r.org_id),
    uid: String(r.uid),
    folderUid: String(r.folder_uid),
    name: String(r.name),
    kind: Number(r.kind),
    type: String(r.type),
    description: String(r.description),
    model: r.model as Record<string, unknown>,
    version: Number(r.version),
    created: r.created_at as Date,
    createdBy: Number(r.created_by),
    updated: r.updated_at as Date,
    updatedBy: Number(r.updated_by),
    connectedDashboards: Number(r.connected ?? 0),
  };
}

const isDuplicate = (err: unknown) => /library_elements_(uid|name)_key/.test(String(err));

/** uids of the library panels a dashboard spec uses, rows' collapsed panels included */
export function libraryPanelUids(spec: Record<string, unknown>): string[] {
  const out = new Set<string>();
  const walk = (panels: unknown) => {
    if (!Array.isArray(panels)) return;
    for (const p of panels) {
      if (!p || typeof p !== "object") continue;
      const lp = (p as { libraryPanel?: { uid?: unknown } }).libraryPanel;
      if (lp && typeof lp.uid === "string" && lp.uid) out.add(lp.uid);
      walk((p as { panels?: unknown }).panels);
    }
  };
  walk(spec.panels);
  return [...out];
}

export interface LibraryElementStore {
  /** another node changed the table: what is held is read again at next use */
  invalidate(): void;
  list(orgId: number): Promise<LibraryElement[]>;
  get(orgId: number, uid: string): Promise<LibraryElement>;
  create(orgId: number, input: ElementInput, userId: number, now: Date): Promise<LibraryElement>;
  update(orgId: number, current: LibraryElement, input: ElementInput, version: number, userId: number, now: Date): Promise<LibraryElement>;
  delete(orgId: number, element: LibraryElement): Promise<void>;
  connections(orgId: number, elementId: number): Promise<Connection[]>;
  /** makes the dashboard's connections those of the library panels its spec uses */
  connectDashboard(orgId: number, dashboard: { uid: string; id: number; spec: Record<string, unknown> }, userId: number, now: Date): Promise<void>;
  disconnectDashboards(orgId: number, dashboardUids: string[]): Promise<void>;
  /**
   * Refuses when an element in these folders is used by a dashboard that is
   * not going away with them (`leaving`).
   */
  checkFoldersDeletable(orgId: number, folders: string[], leaving: string[]): Promise<void>;
  deleteInFolders(orgId: number, folders: string[]): Promise<void>;
  /** how many elements live in these folders */
  countIn(orgId: number, folders: string[]): Promise<number>;
}

export function createLibraryElementStore(pg: Sql): LibraryElementStore {
  const cache = new Map<number, Promise<LibraryElement[]>>();
  const load = (orgId: number) => {
    let p = cache.get(orgId);
    if (!p) {
      p = pg
        .query<Record<string, unknown>>(
          `select e.*, (select count(*) from library_connections c where c.element_id = e.id)::int as connected
             from library_elements e where e.org_id = $1 order by lower(e.name), e.id`,
          [orgId],
        )
        .then((r) => r.rows.map(toElement));
      p.catch(() => cache.delete(orgId));
      cache.set(orgId, p);
    }
    return p;
  };
  const changed = (orgId: number) => cache.delete(orgId);
  /** a write of an element: a clash on name or uid is the real product's 400 */
  const write = async <T>(orgId: number, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (isDuplicate(err)) throw exists();
      throw err;
    } finally {
      changed(orgId);
    }
  };

  const store: LibraryElementStore = {
    invalidate: () => cache.clear(),
    list: load,
    async get(orgId, uid) {
      const e = (await load(orgId)).find((x) => x.uid === uid);
      if (!e) throw notFoundError();
      return e;
    },
    async create(orgId, input, userId, now) {
      const uid = input.uid || newUid();
      const { type, description } = fromModel(input.model);
      await write(orgId, () =>
        pg.query(
          `insert into library_elements (org_id, uid, folder_uid, name, kind, type, description, model, version, created_at, created_by, updated_at, updated_by)
           values ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9, $10, $9, $10)`,
          [orgId, uid, input.folderUid, input.name, input.kind, type, description, input.model, now, userId],
        ),
      );
      return store.get(orgId, uid);
    },
    async update(orgId, current, input, version, userId, now) {
      const uid = input.uid || current.uid;
      const { type, description } = fromModel(input.model);
      const r = await write(orgId, () =>
        pg.query(
          `update library_elements set uid = $3, folder_uid = $4, name = $5, kind = $6, type = $7, description = $8, model = $9,
                  version = version + 1, updated_at = $10, updated_by = $11
            where org_id = $1 and id = $2 and version = $12`,
          [orgId, current.id, uid, input.folderUid, input.name, input.kind, type, description, input.model, now, userId, version],
        ),
      );
      if (!r.affectedRows) throw new ApiError(412, "the library element has been changed by someone else");
      return store.get(orgId, uid);
    },
    async delete(orgId, element) {
      // the check and the delete in one statement: a connection made in between wins
      const r = await pg.query(
        `delete from library_elements e where e.org_id = $1 and e.id = $2
           and not exists (select 1 from library_connections c where c.element_id = e.id)`,
        [orgId, element.id],
      );
      changed(orgId);
      if (!r.affectedRows) {
        if ((await load(orgId)).some((x) => x.id === element.id)) throw badRequest("the library element has connections");
        throw notFoundError();
      }
    },
    async connections(orgId, elementId) {
      const r = await pg.query<Record<string, unknown>>(
        "select * from library_connections where org_id = $1 and element_id = $2 order by id",
        [orgId, elementId],
      );
      return r.rows.map((c) => ({
        id: Number(c.id),
        elementId: Number(c.element_id),
        dashboardUid: String(c.dashboard_uid),
        dashboardId: Number(c.dashboard_id),
        created: c.created_at as Date,
        createdBy: Number(c.created_by),
      }));
    },
    async connectDashboard(orgId, dashboard, userId, now) {
      const uids = libraryPanelUids(dashboard.spec);
      const had = (await load(orgId)).some((e) => e.connectedDashboards > 0);
      if (!uids.length && !had) return;
      // panels naming an unknown element are left alone: the save still succeeds
      await pg.transaction(async (tx) => {
        await tx.query(
          `delete from library_connections c using library_elements e
            where c.element_id = e.id and c.org_id = $1 and c.dashboard_uid = $2 and not (e.uid = any($3::text[]))`,
          [orgId, dashboard.uid, uids],
        );
        await tx.query(
          `insert into library_connections (element_id, org_id, dashboard_uid, dashboard_id, created_at, created_by)
           select e.id, $1, $2, $3, $5, $6 from library_elements e where e.org_id = $1 and e.uid = any($4::text[])
           on conflict (element_id, dashboard_uid) do nothing`,
          [orgId, dashboard.uid, dashboard.id, uids, now, userId],
        );
      });
      changed(orgId);
    },
    async disconnectDashboards(orgId, dashboardUids) {
      if (!dashboardUids.length) return;
      await pg.query("delete from library_connections where org_id = $1 and dashboard_uid = any($2::text[])", [orgId, dashboardUids]);
      changed(orgId);
    },
    async checkFoldersDeletable(orgId, folders, leaving) {
      const r = await pg.query(
        `select 1 from library_connections c join library_elements e on e.id = c.element_id
          where e.org_id = $1 and e.folder_uid = any($2::text[]) and not (c.dashboard_uid = any($3::text[])) limit 1`,
        [orgId, folders, leaving],
      );
      if (r.rows.length) throw badRequest("folder contains library elements that are linked in use");
    },
    async deleteInFolders(orgId, folders) {
      await pg.query("delete from library_elements where org_id = $1 and folder_uid = any($2::text[])", [orgId, folders]);
      changed(orgId);
    },
    async countIn(orgId, folders) {
      const inside = new Set(folders);
      return (await load(orgId)).filter((e) => inside.has(e.folderUid)).length;
    },
  };
  return store;
}
