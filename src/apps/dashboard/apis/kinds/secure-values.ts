// Secure values (secret.svc.app/v1beta1): a described secret whose value is
// write-only. The value is sealed (core/secrets/secrets.ts) into its own row and taken
// out of the object before the machinery stores it, so it is in no response,
// list, history entry or log line; DELETE removes the sealed row with the
// object. Data sources read values through secureValueAccess.
import type { Sql } from "../../../../db/sql.ts";
import { type } from "../../../../lib/arktype.ts";
import { ApiError, forbidden } from "../../../../lib/errors.ts";
import { namespaceOf, type NamespaceContext } from "../../core/identity/namespaces.ts";
import type { SecureValueAccess } from "../../core/datasources/datasources.ts";
import type { SealedField, Secrets } from "../../core/secrets/secrets.ts";
import { statusErrors, type KindDescriptor } from "../kind.ts";
import type { ResourceStore, StoredObject } from "../store.ts";

export const SECURE_VALUE_GROUP = "secret.svc.app";
export const DECRYPTERS = ["loadtest-cloud", "provisioning.svc.app", "synthetic-monitoring"] as const;
const MAX_DESCRIPTION = 25;
const MAX_VALUE_BYTES = 24576;
const MAX_DECRYPTERS = 64;

const SecureValueSpec = type({
  description: "string",
  "value?": "string",
  "decrypters?": type.enumerated(...DECRYPTERS).array(),
});

export const secureValueOwner = (namespace: string, name: string) => `securevalue:${namespace}/${name}`;

export function secureValueKind(secrets: Secrets, pg: Sql): KindDescriptor {
  /** sealed values on their way from beforeWrite to afterWrite (never stored in the object) */
  const pending = new WeakMap<StoredObject, SealedField>();
  const invalid = (name: string, field: string, detail: string) => statusErrors.invalid(d, name, field, detail);

  const d: KindDescriptor = {
    group: SECURE_VALUE_GROUP,
    resource: "securevalues",
    kind: "SecureValue",
    versions: [{ name: "v1beta1", stable: false, defaultOn: true }],
    specSchema: SecureValueSpec,
    // a DNS-1123 subdomain, as Kubernetes names
    maxNameLength: 253,
    namePattern: {
      re: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
      message: "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
    },
    inFolders: false,
    staleStatus: 409,
    actions: {
      read: "secret.securevalues:read",
      create: "secret.securevalues:create",
      write: "secret.securevalues:write",
      delete: "secret.securevalues:delete",
    },
    validateSpec(spec, name) {
      const raw = (typeof spec === "object" && spec !== null ? spec : {}) as Record<string, unknown>;
      for (const key of Object.keys(raw)) {
        if (key === "ref" || key === "keeper") throw invalid(name, `spec.${key}`, "external keepers are not supported: the value is kept by this server");
        if (!["description", "value", "decrypters"].includes(key)) throw invalid(name, `spec.${key}`, "unknown field");
      }
      // checked by hand so that no message can ever quote the value
      if (raw.value === undefined || raw.value === "") throw invalid(name, "spec", "either a `value` or `ref` is required");
      if (typeof raw.value !== "string") throw invalid(name, "spec.value", "must be a string");
      if (Buffer.byteLength(raw.value) > MAX_VALUE_BYTES) throw invalid(name, "spec.value", `must be at most ${MAX_VALUE_BYTES} bytes`);
      if (raw.description === undefined || raw.description === "") throw invalid(name, "spec.description", "a `description` is required");
      if (typeof raw.description !== "string") throw invalid(name, "spec.description", "must be a string");
      if ([...raw.description].length > MAX_DESCRIPTION) throw invalid(name, "spec.description", `must be at most ${MAX_DESCRIPTION} characters`);
      const decrypters = raw.decrypters;
      if (decrypters !== undefined) {
        if (!Array.isArray(decrypters)) throw invalid(name, "spec.decrypters", "must be a list of strings");
        // an empty list is no decrypter; an empty item is refused (the real product's message is about the item)
        if (decrypters.length > MAX_DECRYPTERS) throw invalid(name, "spec.decrypters", `must have at most ${MAX_DECRYPTERS} items`);
        for (const [i, x] of decrypters.entries()) {
          if (typeof x === "string" && x.trim() === "") throw invalid(name, `spec.decrypters[${i}]`, "decrypters cannot be empty if specified");
          if (!(DECRYPTERS as readonly unknown[]).includes(x)) {
            throw invalid(name, `spec.decrypters[${i}]`, `must be one of ${DECRYPTERS.join(", ")}`);
          }
        }
        if (new Set(decrypters).size !== decrypters.length) throw invalid(name, "spec.decrypters", "decrypters must be unique");
      }
      return { description: raw.description, value: raw.value, ...(decrypters ? { decrypters } : {}) };
    },
    async scopes(_ctx, name) {
      return [`secret.securevalues:uid:${name}`];
    },
    async createScopes(_ctx, name) {
      return [`secret.securevalues:uid:${name}`];
    },
    async beforeWrite(ctx, next) {
      const { value, ...rest } = next.spec;
      pending.set(next, await secrets.seal(secureValueOwner(ctx.namespace, next.metadata.name), "value", value as string));
      next.spec = rest;
    },
    async afterWrite(ctx, object) {
      const sealed = pending.get(object);
      if (sealed) await secrets.write(pg, secureValueOwner(ctx.namespace, object.metadata.name), [sealed]);
    },
    async afterDelete(ctx, object) {
      await secrets.remove(pg, secureValueOwner(ctx.namespace, object.metadata.name));
    },
    redact(spec) {
      const { value: _never, ...rest } = spec;
      return rest;
    },
  };
  return d;
}

/** what data sources may do with secure values: check one exists, and read its value */
export function secureValueAccess(store: ResourceStore, namespaces: NamespaceContext, secrets: Secrets): SecureValueAccess {
  const find = async (orgId: number, name: string) => {
    const namespace = namespaceOf(orgId, namespaces);
    return { namespace, object: await store.get({ group: SECURE_VALUE_GROUP, resource: "securevalues", namespace }, name) };
  };
  return {
    async decrypters(orgId, name) {
      const { object } = await find(orgId, name);
      return object ? ((object.spec.decrypters as string[] | undefined) ?? []) : undefined;
    },
    async decrypt(orgId, name, decrypter) {
      const { namespace, object } = await find(orgId, name);
      if (!object) throw new ApiError(400, `secure value "${name}" no longer exists`);
      const allowed = (object.spec.decrypters as string[] | undefined) ?? [];
      if (decrypter !== undefined && !allowed.includes(decrypter)) {
        throw forbidden(`secure value "${name}" does not allow ${decrypter} to decrypt it (spec.decrypters)`);
      }
      const value = (await secrets.open(secureValueOwner(namespace, name))).value;
      if (value === undefined) throw new ApiError(400, `secure value "${name}" has no stored value`);
      return value;
    },
  };
}
