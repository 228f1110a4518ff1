// Objects of every /apis kind in one table, served from memory: each
// (group, resource, namespace) is loaded once, then kept current by the
// writes that go through here (DESIGN rule 7). History stays in the database
// and is read only when asked for.
import type { PGlite, Transaction } from "@electric-sql/pglite";

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
  /** names in order, rebuilt lazily after a change */
  sorted: string[] | null;
  /** bumped by every change, so readers can keep indexes of their own */
  revision: number;
}

export class DuplicateNameError extends Error {}

export interface ResourceStore {
  get(key: BucketKey, name: string): Promise<StoredObject | undefined>;
  /** every object of the bucket, ordered by name */
  list(key: BucketKey): Promise<StoredObject[]>;
  /** changes whenever the bucket changes */
  revision(key: BucketKey): Promise<number>;
  nextResourceVersion(): Promise<string>;
  /** the numeric id of a new object (its deprecatedInternalID) */
  nextId(): Promise<number>;
  create(key: BucketKey, id: number, object: StoredObject): Promise<void>;
  update(key: BucketKey, object: StoredObject): Promise<void>;
  delete(key: BucketKey, names: string[]): Promise<void>;
  history(key: BucketKey, name: string, afterRv: string | undefined, limit: number): Promise<StoredObject[]>;
  version(key: BucketKey, name: string, rv: string): Promise<StoredObject | undefined>;
  /** drops what is cached of a namespace whose rows were deleted (an organization's) */
  forget(namespace: string): void;
  /** the newest stored version of an object at a generation */
  atGeneration(key: BucketKey, name: string, generation: number): Promise<StoredObject | undefined>;
}

/** every version of every object is kept, for history and GET ?resourceVersion */
function recordVersion(tx: Transaction, key: BucketKey, object: StoredObject) {
  return tx.query(
    "insert into resource_history (api_group, resource, namespace, name, resource_version, object) values ($1, $2, $3, $4, $5, $6)",
    [key.group, key.resource, key.namespace, object.metadata.name, object.metadata.resourceVersion, object],
  );
}

const bucketId = (k: BucketKey) => `${k.group}\n${k.resource}\n${k.namespace}`;

export function createResourceStore(pg: PGlite): ResourceStore {
  const buckets = new Map<string, Promise<Bucket>>();

  const bucket = (key: BucketKey): Promise<Bucket> => {
    const id = bucketId(key);
    let b = buckets.get(id);
    if (!b) {
      b = pg
        .query<{ name: string; object: StoredObject }>(
          "select name, object from resources where api_group = $1 and resource = $2 and namespace = $3",
          [key.group, key.resource, key.namespace],
        )
        .then((r) => ({ byName: new Map(r.rows.map((row) => [row.name, row.object])), sorted: null, revision: 0 }));
      b.catch(() => buckets.delete(id));
      buckets.set(id, b);
    }
    return b;
  };

  const remember = async (key: BucketKey, object: StoredObject) => {
    const b = await bucket(key);
    if (!b.byName.has(object.metadata.name)) b.sorted = null;
    b.byName.set(object.metadata.name, object);
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
    async update(key, object) {
      await pg.transaction(async (tx) => {
        await tx.query(
          `update resources set resource_version = $5, object = $6
            where api_group = $1 and resource = $2 and namespace = $3 and name = $4`,
          [key.group, key.resource, key.namespace, object.metadata.name, object.metadata.resourceVersion, object],
        );
        await recordVersion(tx, key, object);
      });
      await remember(key, object);
    },
    async delete(key, names) {
      if (!names.length) return;
      await pg.query(
        "delete from resources where api_group = $1 and resource = $2 and namespace = $3 and name = any($4::text[])",
        [key.group, key.resource, key.namespace, names],
      );
      const b = await bucket(key);
      for (const n of names) b.byName.delete(n);
      b.sorted = null;
      b.revision++;
    },
    async history(key, name, afterRv, limit) {
      const r = await pg.query<{ object: StoredObject }>(
        `select object from resource_history
          where api_group = $1 and resource = $2 and namespace = $3 and name = $4 and ($5::bigint is null or resource_version < $5::bigint)
          order by resource_version desc limit $6`,
        [key.group, key.resource, key.namespace, name, afterRv ?? null, limit],
      );
      return r.rows.map((row) => row.object);
    },
    async version(key, name, rv) {
      const r = await pg.query<{ object: StoredObject }>(
        `select object from resource_history
          where api_group = $1 and resource = $2 and namespace = $3 and name = $4 and resource_version = $5::bigint`,
        [key.group, key.resource, key.namespace, name, rv],
      );
      return r.rows[0]?.object;
    },
    forget(namespace) {
      for (const id of [...buckets.keys()]) if (id.endsWith(`\n${namespace}`)) buckets.delete(id);
    },
    async atGeneration(key, name, generation) {
      const r = await pg.query<{ object: StoredObject }>(
        `select object from resource_history
          where api_group = $1 and resource = $2 and namespace = $3 and name = $4 and (object->'metadata'->>'generation')::bigint = $5
          order by resource_version desc limit 1`,
        [key.group, key.resource, key.namespace, name, generation],
      );
      return r.rows[0]?.object;
    },
  };
}
