// Objects of every /apis kind in one table, served from memory: each
// (group, resource, namespace) is loaded once, then kept current by the
// writes that go through here (DESIGN rule 7). History stays in the database
// and is read only when asked for.
import type { Sql, SqlTx } from "../../../db/sql.ts";
import { FOLDER_ANNOTATION, INTERNAL_ID_LABEL } from "./kind.ts";

export interface Metadata {
  name: string;
  namespace: string;
  uid: string;
  resourceVersion: string;
  generation: number;
  creationTimestamp: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface StoredObject {
  metadata: Metadata;
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
}

export interface BucketKey {
  group: string;
  resource: string;
  namespace: string;
}

interface Bucket {
  byName: Map<string, StoredObject>;
  /** deprecated numeric id (label) -> name */
  byId: Map<string, string>;
  /** "<folder>\n<title>" -> names: the legacy API's lookups by id and by title in a folder, without a scan */
  byTitle: Map<string, Set<string>>;
  /** names in order, rebuilt lazily after a change */
  sorted: string[] | null;
  /** bumped by every change, so readers can keep indexes of their own */
  revision: number;
}

export class DuplicateNameError extends Error {}
/** an update of an object whose row is gone */
export class ObjectGoneError extends Error {}
/**
 * an update computed from a version of the object that is no longer the
 * stored one (another node wrote it meanwhile): nothing written, and the
 * object held in memory has been read again from the database
 */
export class StaleObjectError extends Error {}

export interface ResourceStore {
  get(key: BucketKey, name: string): Promise<StoredObject | undefined>;
  /** every object of the bucket, ordered by name */
  list(key: BucketKey): Promise<StoredObject[]>;
  /** changes whenever the bucket changes */
  revision(key: BucketKey): Promise<number>;
  /** the object with this deprecated numeric id */
  byId(key: BucketKey, id: number): Promise<StoredObject | undefined>;
  /** the objects with exactly this spec.title in this folder ("" for the root) */
  byTitle(key: BucketKey, folder: string, title: string): Promise<StoredObject[]>;
  nextResourceVersion(): Promise<string>;
  /** the numeric id of a new object (its deprecatedInternalID) */
  nextId(): Promise<number>;
  create(key: BucketKey, id: number, object: StoredObject): Promise<void>;
  /**
   * Stores `object` as the next version of the object, only if the stored
   * row is still at `previousResourceVersion` (the version the update was
   * computed from): the database judges, so two nodes cannot both write over
   * the same version. Otherwise nothing is written, the object is read again
   * into memory, and StaleObjectError (a newer version is stored) or
   * ObjectGoneError (the row is gone) is thrown.
   */
  update(key: BucketKey, object: StoredObject, previousResourceVersion: string): Promise<void>;
  delete(key: BucketKey, names: string[]): Promise<void>;
  /**
   * versions of an object, newest first. `uid` (metadata.uid) keeps to one
   * incarnation: an object deleted and made again under the same name must
   * not show the versions of the one before to whoever made it again
   */
  history(key: BucketKey, name: string, afterRv: string | undefined, limit: number, uid?: string): Promise<StoredObject[]>;
  version(key: BucketKey, name: string, rv: string, uid?: string): Promise<StoredObject | undefined>;
  /** drops what is cached of a namespace whose rows were deleted (an organization's) */
  forget(namespace: string): void;
  /**
   * Another node wrote an object: read again (when its bucket is held), or
   * with no key, every bucket dropped (read again at next use). Revisions
   * keep growing, so indexes built on them see the change.
   */
  refresh(key?: BucketKey, name?: string): Promise<void>;
  /** the newest stored version of an object at a generation */
  atGeneration(key: BucketKey, name: string, generation: number, uid: string): Promise<StoredObject | undefined>;
}

/** every version of every object is kept, for history and GET ?resourceVersion */
function recordVersion(tx: SqlTx, key: BucketKey, object: StoredObject) {
  return tx.query(
    "insert into resource_history (api_group, resource, namespace, name, resource_version, object) values ($1, $2, $3, $4, $5, $6)",
    [key.group, key.resource, key.namespace, object.metadata.name, object.metadata.resourceVersion, object],
  );
}

const bucketId = (k: BucketKey) => `${k.group}\n${k.resource}\n${k.namespace}`;
const titleKey = (o: StoredObject) => `${o.metadata.annotations[FOLDER_ANNOTATION] ?? ""}\n${String(o.spec.title ?? "")}`;

function index(b: Bucket, o: StoredObject): void {
  const id = o.metadata.labels[INTERNAL_ID_LABEL];
  if (id !== undefined) b.byId.set(id, o.metadata.name);
  const k = titleKey(o);
  let names = b.byTitle.get(k);
  if (!names) b.byTitle.set(k, (names = new Set()));
  names.add(o.metadata.name);
}

function unindex(b: Bucket, o: StoredObject): void {
  const id = o.metadata.labels[INTERNAL_ID_LABEL];
  if (id !== undefined && b.byId.get(id) === o.metadata.name) b.byId.delete(id);
  const k = titleKey(o);
  const names = b.byTitle.get(k);
  names?.delete(o.metadata.name);
  if (names?.size === 0) b.byTitle.delete(k);
}

export function createResourceStore(pg: Sql): ResourceStore {
  const buckets = new Map<string, Promise<Bucket>>();
  /** buckets read so far: a bucket read again (dropped, then used) starts its revisions above any handed out before */
  let generation = 0;

  const bucket = (key: BucketKey): Promise<Bucket> => {
    const id = bucketId(key);
    let b = buckets.get(id);
    if (!b) {
      b = pg
        .query<{ name: string; object: StoredObject }>(
          "select name, object from resources where api_group = $1 and resource = $2 and namespace = $3",
          [key.group, key.resource, key.namespace],
        )
        .then((r) => {
          const bucket: Bucket = { byName: new Map(), byId: new Map(), byTitle: new Map(), sorted: null, revision: ++generation * 2 ** 32 };
          for (const row of r.rows) {
            bucket.byName.set(row.name, row.object);
            index(bucket, row.object);
          }
          return bucket;
        });
      b.catch(() => buckets.delete(id));
      buckets.set(id, b);
    }
    return b;
  };

  const remember = async (key: BucketKey, object: StoredObject) => {
    const b = await bucket(key);
    const before = b.byName.get(object.metadata.name);
    if (!before) b.sorted = null;
    else unindex(b, before);
    b.byName.set(object.metadata.name, object);
    index(b, object);
    b.revision++;
  };

  const refresh = async (key?: BucketKey, name?: string): Promise<void> => {
    if (!key || name === undefined) {
      buckets.clear();
      return;
    }
    const held = buckets.get(bucketId(key));
    if (!held) return;
    const b = await held;
    const r = await pg.query<{ object: StoredObject }>(
      "select object from resources where api_group = $1 and resource = $2 and namespace = $3 and name = $4",
      [key.group, key.resource, key.namespace, name],
    );
    const object = r.rows[0]?.object;
    const before = b.byName.get(name);
    // versions of one object only grow (each is taken after the one it replaces was read): an older read is a late one
    if (object && before && Number(before.metadata.resourceVersion) > Number(object.metadata.resourceVersion)) return;
    if (object) return remember(key, object);
    if (!before) return;
    unindex(b, before);
    b.byName.delete(name);
    b.sorted = null;
    b.revision++;
  };

  return {
    async get(key, name) {
      return (await bucket(key)).byName.get(name);
    },
    async list(key) {
      const b = await bucket(key);
      b.sorted ??= [...b.byName.keys()].sort();
      return b.sorted.map((n) => b.byName.get(n)!);
    },
    async revision(key) {
      return (await bucket(key)).revision;
    },
    async byId(key, id) {
      const b = await bucket(key);
      const name = b.byId.get(String(id));
      return name === undefined ? undefined : b.byName.get(name);
    },
    async byTitle(key, folder, title) {
      const b = await bucket(key);
      return [...(b.byTitle.get(`${folder}\n${title}`) ?? [])].map((n) => b.byName.get(n)!).filter(Boolean);
    },
    async nextResourceVersion() {
      const r = await pg.query<{ v: string }>("select nextval('resource_version_seq')::text as v");
      return r.rows[0]!.v;
    },
    async nextId() {
      const r = await pg.query<{ v: number }>("select nextval(pg_get_serial_sequence('resources', 'id'))::int as v");
      return r.rows[0]!.v;
    },
    async create(key, id, object) {
      await bucket(key);
      await pg
        .transaction(async (tx) => {
          await tx.query(
            `insert into resources (id, api_group, resource, namespace, name, resource_version, object)
             values ($1, $2, $3, $4, $5, $6, $7)`,
            [id, key.group, key.resource, key.namespace, object.metadata.name, object.metadata.resourceVersion, object],
          );
          await recordVersion(tx, key, object);
        })
        .catch((err: unknown) => {
          if (String(err).includes("resources_api_group_resource_namespace_name_key")) throw new DuplicateNameError();
          throw err;
        });
      await remember(key, object);
    },
    async update(key, object, previousResourceVersion) {
      const name = object.metadata.name;
      const outcome = await pg.transaction(async (tx) => {
        // at read committed, a concurrent update of the row waits for the other's commit and then finds its version changed
        const r = await tx.query(
          `update resources set resource_version = $5, object = $6
            where api_group = $1 and resource = $2 and namespace = $3 and name = $4 and resource_version = $7::bigint`,
          [key.group, key.resource, key.namespace, name, object.metadata.resourceVersion, object, previousResourceVersion],
        );
        if (r.affectedRows) {
          await recordVersion(tx, key, object);
          return "written" as const;
        }
        const still = await tx.query(
          "select 1 from resources where api_group = $1 and resource = $2 and namespace = $3 and name = $4",
          [key.group, key.resource, key.namespace, name],
        );
        return still.rows.length ? ("stale" as const) : ("gone" as const);
      });
      if (outcome === "written") return remember(key, object);
      // what memory held was not the stored version: the stored one (or its absence) replaces it
      await refresh(key, name);
      throw outcome === "stale" ? new StaleObjectError() : new ObjectGoneError();
    },
    async delete(key, names) {
      if (!names.length) return;
      await pg.query(
        "delete from resources where api_group = $1 and resource = $2 and namespace = $3 and name = any($4::text[])",
        [key.group, key.resource, key.namespace, names],
      );
      const b = await bucket(key);
      for (const n of names) {
        const o = b.byName.get(n);
        if (o) unindex(b, o);
        b.byName.delete(n);
      }
      b.sorted = null;
      b.revision++;
    },
    async history(key, name, afterRv, limit, uid) {
      const r = await pg.query<{ object: StoredObject }>(
        `select object from resource_history
          where api_group = $1 and resource = $2 and namespace = $3 and name = $4 and ($5::bigint is null or resource_version < $5::bigint)
            and ($7::text is null or object->'metadata'->>'uid' = $7)
          order by resource_version desc limit $6`,
        [key.group, key.resource, key.namespace, name, afterRv ?? null, limit, uid ?? null],
      );
      return r.rows.map((row) => row.object);
    },
    async version(key, name, rv, uid) {
      const r = await pg.query<{ object: StoredObject }>(
        `select object from resource_history
          where api_group = $1 and resource = $2 and namespace = $3 and name = $4 and resource_version = $5::bigint
            and ($6::text is null or object->'metadata'->>'uid' = $6)`,
        [key.group, key.resource, key.namespace, name, rv, uid ?? null],
      );
      return r.rows[0]?.object;
    },
    forget(namespace) {
      for (const id of [...buckets.keys()]) if (id.endsWith(`\n${namespace}`)) buckets.delete(id);
    },
    refresh,
    async atGeneration(key, name, generation, uid) {
      const r = await pg.query<{ object: StoredObject }>(
        `select object from resource_history
          where api_group = $1 and resource = $2 and namespace = $3 and name = $4 and (object->'metadata'->>'generation')::bigint = $5
            and object->'metadata'->>'uid' = $6
          order by resource_version desc limit 1`,
        [key.group, key.resource, key.namespace, name, generation, uid],
      );
      return r.rows[0]?.object;
    },
  };
}
