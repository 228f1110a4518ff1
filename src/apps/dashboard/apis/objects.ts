// Create, read, update and delete of one object of any kind.
import { randomUUID } from "node:crypto";
import { canonicalJson } from "../../../lib/json.ts";
import { hasPermission } from "../core/identity/permissions.ts";
import { checkName, generatedName, parseObjectBody } from "./envelope.ts";
import {
  CREATED_BY, FOLDER_ANNOTATION, INTERNAL_ID_LABEL, MESSAGE_ANNOTATION, SERVER_ANNOTATIONS, UPDATED_AT, UPDATED_BY,
  isoSeconds, statusErrors, type KindContext, type KindDescriptor,
} from "./kind.ts";
import { DuplicateNameError, ObjectGoneError, StaleObjectError, type BucketKey, type StoredObject } from "./store.ts";
import type { ResourceVersion } from "./query-options.ts";

export const bucketOf = (d: KindDescriptor, ctx: KindContext): BucketKey => ctx.bucket(d.group, d.resource);

/**
 * Writes to one bucket run one at a time: the resourceVersion check and the
 * write it guards must not interleave with another write of this process (no
 * lost updates). Other nodes on the same PostgreSQL database write without
 * this queue: there the database judges (store.update writes only over the
 * version the update was computed from).
 */
const writeQueues = new Map<string, Promise<unknown>>();
function serialized<T>(key: BucketKey, fn: () => Promise<T>): Promise<T> {
  const id = `${key.group}/${key.resource}/${key.namespace}`;
  const run = (writeQueues.get(id) ?? Promise.resolve()).then(fn, fn);
  const settled = run.then(() => undefined, () => undefined);
  writeQueues.set(id, settled);
  void settled.then(() => {
    if (writeQueues.get(id) === settled) writeQueues.delete(id);
  });
  return run;
}

export function actor(ctx: KindContext): string {
  return `${ctx.identity.kind === "user" ? "user" : "service-account"}:${ctx.identity.user.uid}`;
}

export async function requirePermission(d: KindDescriptor, ctx: KindContext, action: string, scopes: string[] | undefined, name: string) {
  if (!hasPermission(ctx.identity.permissions, action, scopes)) throw statusErrors.forbidden(d, name, action);
}

export async function canRead(d: KindDescriptor, ctx: KindContext, o: StoredObject): Promise<boolean> {
  // the object's own scope first: a wildcard grant answers without walking its folders
  if (hasPermission(ctx.identity.permissions, d.actions.read, await d.scopes(ctx, o.metadata.name, undefined))) return true;
  const folder = o.metadata.annotations[FOLDER_ANNOTATION];
  if (!folder) return false;
  // then through its folders (their uid scopes), found once per folder in a request: a list of
  // thousands of dashboards in fifty folders checks fifty folders
  const key = `${d.actions.read}\n${folder}`;
  let through = ctx.throughFolder.get(key);
  if (through === undefined) {
    through = hasPermission(ctx.identity.permissions, d.actions.read, (await ctx.folderChain(folder)).map((f) => `folders:uid:${f}`));
    ctx.throughFolder.set(key, through);
  }
  return through;
}

/** GET: a missing object is 404 whoever asks; an existing one the caller may not read is 403 */
export async function getObject(d: KindDescriptor, ctx: KindContext, name: string, resourceVersion?: ResourceVersion): Promise<StoredObject> {
  const current = await ctx.store.get(bucketOf(d, ctx), name);
  if (!current) throw statusErrors.notFound(d, name);
  if (!(await canRead(d, ctx, current))) throw statusErrors.forbidden(d, name, d.actions.read);
  const rv = resourceVersion?.value;
  if (rv === undefined || rv === current.metadata.resourceVersion) return current;
  // a version past the store's range was never written
  const old = resourceVersion?.beyondStore ? undefined : await ctx.store.version(bucketOf(d, ctx), name, rv, current.metadata.uid);
  if (!old) throw statusErrors.notFound(d, name);
  return old;
}

async function folderOf(d: KindDescriptor, ctx: KindContext, annotations: Record<string, string>, name: string) {
  const folder = annotations[FOLDER_ANNOTATION] || undefined;
  if (folder === undefined) {
    delete annotations[FOLDER_ANNOTATION];
    return undefined;
  }
  if (!d.inFolders) throw statusErrors.invalid(d, name, `metadata.annotations.${FOLDER_ANNOTATION}`, "this kind does not live in folders");
  const exists = await ctx.store.get(ctx.bucket("folder.svc.app", "folders"), folder);
  if (!exists) throw statusErrors.invalid(d, name, `metadata.annotations.${FOLDER_ANNOTATION}`, `folder "${folder}" not found`);
  return folder;
}

export function createObject(d: KindDescriptor, ctx: KindContext, body: unknown): Promise<StoredObject> {
  return serialized(bucketOf(d, ctx), () => create(d, ctx, body));
}

export interface UpdateOptions {
  /**
   * a new version even when nothing changed: the legacy save API answers
   * every save with the next version, as the real product does
   */
  alwaysNewVersion?: boolean;
}

/** how many times an update without a resourceVersion is computed again when another node wrote the object meanwhile */
const UNCONDITIONAL_ATTEMPTS = 5;

export function updateObject(d: KindDescriptor, ctx: KindContext, name: string, body: unknown, options: UpdateOptions = {}): Promise<StoredObject> {
  return serialized(bucketOf(d, ctx), async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await update(d, ctx, name, body, options);
      } catch (err) {
        // an update without a resourceVersion is "last write wins": computed again over the version now stored
        if (!(err instanceof StaleObjectError)) throw err;
        if (attempt >= UNCONDITIONAL_ATTEMPTS) throw statusErrors.stale(d, name);
      }
    }
  });
}

export function deleteObject(d: KindDescriptor, ctx: KindContext, name: string, query: URLSearchParams): Promise<StoredObject> {
  // queues are always taken in the same order (the kind's own first), so two deletes cannot wait on each other
  const run = (d.deleteAlsoLocks ?? []).reduceRight<() => Promise<StoredObject>>(
    (inner, other) => () => serialized(ctx.bucket(other.group, other.resource), inner),
    () => remove(d, ctx, name, query),
  );
  return serialized(bucketOf(d, ctx), run);
}

async function create(d: KindDescriptor, ctx: KindContext, body: unknown): Promise<StoredObject> {
  const parsed = parseObjectBody(d, body);
  let name: string;
  if (parsed.name !== undefined) name = parsed.name;
  else if (parsed.generateName !== undefined) name = generatedName(d, parsed.generateName);
  else throw statusErrors.invalid(d, "", "metadata.name", "name or generateName is required");
  checkName(d, name);
  const spec = d.validateSpec(parsed.spec, name);
  const annotations = withoutServerKeys(parsed.annotations);
  const folder = await folderOf(d, ctx, annotations, name);
  await requirePermission(d, ctx, d.actions.create, await d.createScopes(ctx, name, folder), name);
  const key = bucketOf(d, ctx);
  if (await ctx.store.get(key, name)) throw statusErrors.exists(d, name);
  const now = isoSeconds(ctx.now());
  const id = await ctx.store.nextId();
  const who = actor(ctx);
  const object: StoredObject = {
    metadata: {
      name,
      namespace: ctx.namespace,
      uid: randomUUID(),
      resourceVersion: "",
      generation: 1,
      creationTimestamp: now,
      labels: { ...withoutKey(parsed.labels, INTERNAL_ID_LABEL), [INTERNAL_ID_LABEL]: String(id) },
      annotations: { ...annotations, [CREATED_BY]: who, [UPDATED_BY]: who, [UPDATED_AT]: now },
    },
    spec,
    status: {},
  };
  await d.beforeWrite?.(ctx, object, undefined);
  object.metadata.resourceVersion = await ctx.store.nextResourceVersion();
  try {
    await ctx.store.create(key, id, object);
  } catch (err) {
    if (err instanceof DuplicateNameError) throw statusErrors.exists(d, name);
    throw err;
  }
  await d.afterWrite?.(ctx, object, undefined);
  return object;
}

async function update(d: KindDescriptor, ctx: KindContext, name: string, body: unknown, options: UpdateOptions): Promise<StoredObject> {
  const parsed = parseObjectBody(d, body, name);
  const key = bucketOf(d, ctx);
  const previous = await ctx.store.get(key, name);
  if (!previous) throw statusErrors.notFound(d, name);
  const before = previous.metadata.annotations[FOLDER_ANNOTATION];
  await requirePermission(d, ctx, d.actions.write, await d.scopes(ctx, name, before), name);
  if (parsed.resourceVersion !== undefined && parsed.resourceVersion !== previous.metadata.resourceVersion) {
    throw statusErrors.stale(d, name);
  }
  const spec = d.validateSpec(parsed.spec, name);
  const annotations = withoutServerKeys(parsed.annotations);
  const folder = await folderOf(d, ctx, annotations, name);
  if (folder !== before) await requirePermission(d, ctx, d.actions.create, await d.createScopes(ctx, name, folder), name);
  const message = annotations[MESSAGE_ANNOTATION];
  const labels = { ...withoutKey(parsed.labels, INTERNAL_ID_LABEL), [INTERNAL_ID_LABEL]: previous.metadata.labels[INTERNAL_ID_LABEL]! };
  const specChanged = options.alwaysNewVersion === true || canonicalJson(spec) !== canonicalJson(previous.spec);
  const metaChanged =
    canonicalJson(labels) !== canonicalJson(previous.metadata.labels) ||
    canonicalJson(annotations) !== canonicalJson(withoutServerKeys(previous.metadata.annotations));
  // writing the same content changes nothing, not even the resourceVersion
  if (!specChanged && !metaChanged) return previous;
  const now = isoSeconds(ctx.now());
  const next: StoredObject = {
    metadata: {
      ...previous.metadata,
      generation: previous.metadata.generation + (specChanged ? 1 : 0),
      labels,
      annotations: {
        ...annotations,
        ...(message !== undefined ? { [MESSAGE_ANNOTATION]: message } : {}),
        [CREATED_BY]: previous.metadata.annotations[CREATED_BY]!,
        [UPDATED_BY]: actor(ctx),
        [UPDATED_AT]: now,
      },
    },
    spec,
    status: previous.status,
  };
  await d.beforeWrite?.(ctx, next, previous);
  next.metadata.resourceVersion = await ctx.store.nextResourceVersion();
  try {
    // the database judges: written only if the stored version is still the one checked above (another node may have written since)
    await ctx.store.update(key, next, previous.metadata.resourceVersion);
  } catch (err) {
    // deleted meanwhile (with its folder by another queue, or on another node): not written, not remembered
    if (err instanceof ObjectGoneError) throw statusErrors.notFound(d, name);
    // another node wrote a newer version: the same answer as a stale resourceVersion caught in memory
    if (err instanceof StaleObjectError && parsed.resourceVersion !== undefined) throw statusErrors.stale(d, name);
    throw err;
  }
  await d.afterWrite?.(ctx, next, previous);
  return next;
}

async function remove(d: KindDescriptor, ctx: KindContext, name: string, query: URLSearchParams): Promise<StoredObject> {
  const key = bucketOf(d, ctx);
  const object = await ctx.store.get(key, name);
  if (!object) throw statusErrors.notFound(d, name);
  await requirePermission(d, ctx, d.actions.delete, await d.scopes(ctx, name, object.metadata.annotations[FOLDER_ANNOTATION]), name);
  await d.beforeDelete?.(ctx, object, query);
  await ctx.store.delete(key, [name]);
  await d.afterDelete?.(ctx, object);
  return object;
}

function withoutKey(map: Record<string, string>, key: string): Record<string, string> {
  const { [key]: _drop, ...rest } = map;
  return rest;
}

function withoutServerKeys(annotations: Record<string, string>): Record<string, string> {
  const out = { ...annotations };
  for (const k of SERVER_ANNOTATIONS) delete out[k];
  return out;
}
