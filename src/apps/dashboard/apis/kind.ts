// A kind is a descriptor registered on the one generic machinery (DESIGN
// rule 5): its group, versions, spec validation, permissions and hooks.
// CRUD, lists, selectors, history, concurrency and Status errors come from
// the machinery.
import { ApiError } from "../../../lib/errors.ts";
import type { Identity } from "../core/identity/authenticate.ts";
import type { BucketKey, ResourceStore, StoredObject } from "./store.ts";

export interface KindVersion {
  name: string;
  /** history is served only on stable versions (v1, v2) */
  stable: boolean;
  /** served without a feature toggle */
  defaultOn: boolean;
}

export interface KindContext {
  identity: Identity;
  namespace: string;
  orgId: number;
  store: ResourceStore;
  now: () => number;
  /** the bucket of another kind in the same namespace */
  bucket(group: string, resource: string): BucketKey;
  /** folder names from the object's folder up to the root (remembered for the request) */
  folderChain(folder: string | undefined): Promise<string[]>;
  /** what this request found of "<action> through folder <f>": a list checks each folder once, not once per object */
  readonly throughFolder: Map<string, boolean>;
}

export interface KindDescriptor {
  group: string;
  resource: string;
  kind: string;
  versions: KindVersion[];
  /** validates and normalises a spec; throws a 400 naming the field */
  validateSpec(spec: unknown, name: string): Record<string, unknown>;
  /** the schema behind validateSpec, for the OpenAPI document */
  specSchema: { toJsonSchema(): unknown };
  actions: { read: string; create: string; write: string; delete: string };
  /** the scopes through which an existing object is reached (itself, its folders) */
  scopes(ctx: KindContext, name: string, folder: string | undefined): Promise<string[]>;
  /** the scopes a new object needs to be created under */
  createScopes(ctx: KindContext, name: string, folder: string | undefined): Promise<string[] | undefined>;
  /** objects live in folders (the svc.app/folder annotation names one) */
  inFolders: boolean;
  /** longest name accepted */
  maxNameLength: number;
  /** a stricter name rule than the default (letters, digits, '-', '_', '.') */
  namePattern?: { re: RegExp; message: string };
  /** status of an update with a stale resourceVersion (409 in Kubernetes; 412 for folders per the spec) */
  staleStatus: 409 | 412;
  /**
   * other kinds' buckets a delete also holds the write queue of: a folder's
   * delete removes its dashboards, so no dashboard may be written into it
   * meanwhile
   */
  deleteAlsoLocks?: Array<{ group: string; resource: string }>;
  beforeWrite?(ctx: KindContext, next: StoredObject, previous: StoredObject | undefined): Promise<void>;
  /** after a create or update is stored */
  afterWrite?(ctx: KindContext, object: StoredObject, previous: StoredObject | undefined): Promise<void>;
  /** may refuse, and may delete dependents; returns the names to delete (default: the object) */
  beforeDelete?(ctx: KindContext, object: StoredObject, query: URLSearchParams): Promise<void>;
  afterDelete?(ctx: KindContext, object: StoredObject): Promise<void>;
  /** strips write-only fields from responses */
  redact?(spec: Record<string, unknown>): Record<string, unknown>;
  subresources?: Record<string, (ctx: KindContext, object: StoredObject, version: string) => Promise<unknown>>;
}

export const FOLDER_ANNOTATION = "svc.app/folder";
export const MESSAGE_ANNOTATION = "svc.app/message";
export const CREATED_BY = "svc.app/createdBy";
export const UPDATED_BY = "svc.app/updatedBy";
export const UPDATED_AT = "svc.app/updatedTimestamp";
export const INTERNAL_ID_LABEL = "svc.app/deprecatedInternalID";
/** keys only the server writes */
export const SERVER_ANNOTATIONS = [CREATED_BY, UPDATED_BY, UPDATED_AT];

export const qualified = (d: KindDescriptor) => `${d.resource}.${d.group}`;

/** Status errors of a kind, with the Kubernetes messages and details */
export const statusErrors = {
  notFound: (d: KindDescriptor, name: string) =>
    new ApiError(404, `${qualified(d)} "${name}" not found`, { details: { name, group: d.group, kind: d.resource } }),
  exists: (d: KindDescriptor, name: string) =>
    new ApiError(409, `${qualified(d)} "${name}" already exists`, {
      reason: "AlreadyExists",
      details: { name, group: d.group, kind: d.resource },
    }),
  stale: (d: KindDescriptor, name: string) =>
    new ApiError(
      d.staleStatus,
      `Operation cannot be fulfilled on ${qualified(d)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      { reason: "Conflict", details: { name, group: d.group, kind: d.resource }, body: { status: "version-mismatch" } },
    ),
  invalid: (d: KindDescriptor, name: string, field: string, detail: string) =>
    new ApiError(400, `${d.kind}.${d.group} "${name}" is invalid: ${field}: ${detail}`, {
      reason: "BadRequest",
      details: { name, group: d.group, kind: d.resource, causes: [{ reason: "FieldValueInvalid", message: detail, field }] },
    }),
  forbidden: (d: KindDescriptor, name: string, action: string) =>
    new ApiError(403, `${qualified(d)} "${name}" is forbidden: permissions needed: ${action}`, {
      details: { name, group: d.group, kind: d.resource },
    }),
};

export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** the versions of a kind this server serves: those on by default and those a feature toggle "<group>/<version>" turns on, less those "-<group>/<version>" turns off */
export function servedVersions(d: KindDescriptor, toggles: readonly string[]): string[] {
  return d.versions
    .filter((v) => {
      const id = `${d.group}/${v.name}`;
      if (toggles.includes(`-${id}`)) return false;
      return v.defaultOn || toggles.includes(id);
    })
    .map((v) => v.name);
}
