// Turning stored objects into responses, and request bodies into checked
// pieces: the envelope rules of the spec's "Envelope of /apis resources".
import { isPlainObject } from "../../../lib/json.ts";
import { qualified, statusErrors, type KindDescriptor } from "./kind.ts";
import type { StoredObject } from "./store.ts";

export function toResponse(d: KindDescriptor, version: string, o: StoredObject) {
  return {
    kind: d.kind,
    apiVersion: `${d.group}/${version}`,
    metadata: o.metadata,
    spec: d.redact ? d.redact(o.spec) : o.spec,
    status: o.status,
  };
}

export interface ParsedBody {
  kind?: unknown;
  apiVersion?: unknown;
  name?: string;
  generateName?: string;
  resourceVersion?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  spec: unknown;
}

export function parseObjectBody(d: KindDescriptor, body: unknown, pathName?: string): ParsedBody {
  const name = pathName ?? "";
  const bad = (field: string, detail: string) => statusErrors.invalid(d, name, field, detail);
  if (!isPlainObject(body)) throw bad("body", "must be a JSON object");
  if (body.kind !== undefined && body.kind !== d.kind) throw bad("kind", `must be "${d.kind}"`);
  const meta = body.metadata ?? {};
  if (!isPlainObject(meta)) throw bad("metadata", "must be an object");
  const str = (v: unknown, field: string) => {
    if (v !== undefined && typeof v !== "string") throw bad(field, "must be a string");
    return v as string | undefined;
  };
  const map = (v: unknown, field: string) => {
    if (v === undefined || v === null) return {};
    if (!isPlainObject(v) || Object.values(v).some((x) => typeof x !== "string")) throw bad(field, "must be a map of strings");
    return { ...(v as Record<string, string>) };
  };
  const parsed: ParsedBody = {
    kind: body.kind,
    apiVersion: body.apiVersion,
    labels: map(meta.labels, "metadata.labels"),
    annotations: map(meta.annotations, "metadata.annotations"),
    spec: body.spec,
  };
  checkMetadataSizes(parsed, bad);
  const n = str(meta.name, "metadata.name");
  const g = str(meta.generateName, "metadata.generateName");
  const rv = str(meta.resourceVersion, "metadata.resourceVersion");
  if (n !== undefined && n !== "") parsed.name = n;
  if (g !== undefined && g !== "") parsed.generateName = g;
  if (rv !== undefined && rv !== "") parsed.resourceVersion = rv;
  if (pathName !== undefined && parsed.name !== undefined && parsed.name !== pathName) {
    throw bad("metadata.name", `must match the name in the path ("${pathName}")`);
  }
  if (body.spec === undefined) throw bad("spec", "Required value");
  return parsed;
}

/** Kubernetes' size rules for labels and annotations (apimachinery ValidateLabels, ValidateAnnotationsSize) */
const LABEL_VALUE_MAX = 63;
const KEY_NAME_MAX = 63;
const KEY_PREFIX_MAX = 253;
const ANNOTATIONS_MAX_BYTES = 256 * 1024;
const utf8 = new TextEncoder();

function keyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf("/");
  const [prefix, name] = slash < 0 ? ["", key] : [key.slice(0, slash), key.slice(slash + 1)];
  if (name.length === 0) return "name part must be non-empty";
  if (name.length > KEY_NAME_MAX) return `name part must be no more than ${KEY_NAME_MAX} characters`;
  if (prefix.length > KEY_PREFIX_MAX) return `prefix part must be no more than ${KEY_PREFIX_MAX} characters`;
  return undefined;
}

function checkMetadataSizes(parsed: ParsedBody, bad: (field: string, detail: string) => Error): void {
  for (const [key, value] of Object.entries(parsed.labels)) {
    const problem = keyProblem(key);
    if (problem) throw bad("metadata.labels", problem);
    if (value.length > LABEL_VALUE_MAX) throw bad(`metadata.labels.${key}`, `must be no more than ${LABEL_VALUE_MAX} characters`);
  }
  let bytes = 0;
  for (const [key, value] of Object.entries(parsed.annotations)) {
    const problem = keyProblem(key);
    if (problem) throw bad("metadata.annotations", problem);
    bytes += utf8.encode(key).length + utf8.encode(value).length;
  }
  if (bytes > ANNOTATIONS_MAX_BYTES) throw bad("metadata.annotations", `Too long: must have at most ${ANNOTATIONS_MAX_BYTES} bytes`);
}

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/;

export function checkName(d: KindDescriptor, name: string): void {
  if (name.length > d.maxNameLength) {
    throw statusErrors.invalid(d, name, "metadata.name", `must be no more than ${d.maxNameLength} characters`);
  }
  if (d.namePattern && !d.namePattern.re.test(name)) throw statusErrors.invalid(d, name, "metadata.name", d.namePattern.message);
  if (!NAME.test(name)) {
    throw statusErrors.invalid(d, name, "metadata.name", "must consist of letters, digits, '-', '_' or '.', and start with a letter or digit");
  }
}

const SUFFIX = "bcdfghjklmnpqrstvwxz2456789";

/** generateName: the prefix plus five random characters, as Kubernetes does */
export function generatedName(d: KindDescriptor, prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  const name = prefix + Array.from(bytes, (b) => SUFFIX[b % SUFFIX.length]).join("");
  checkName(d, name);
  return name;
}

export { qualified };
