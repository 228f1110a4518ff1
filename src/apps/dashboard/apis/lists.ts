// Lists with limit/continue and selectors, and the history of one object.
// Pages follow name order with a token naming the last item returned, so
// objects created or deleted between pages cause neither duplicates nor
// skips of objects that existed throughout.
import { decodeContinue, encodeContinue } from "../../../lib/continue-token.ts";
import { ApiError } from "../../../lib/errors.ts";
import { matches, parseLabelSelector, SelectorError, type Requirement } from "../../../lib/selectors.ts";
import { toResponse } from "./envelope.ts";
import { statusErrors, type KindContext, type KindDescriptor } from "./kind.ts";
import { bucketOf, canRead, getObject } from "./objects.ts";
import { checkListOptions, parseResourceVersion } from "./query-options.ts";
import type { StoredObject } from "./store.ts";

/** the real product's default page size (reference §6.4) */
export const DEFAULT_LIMIT = 50;
const HISTORY_LABEL = "svc.app/get-history";

function selectors(query: URLSearchParams) {
  try {
    return {
      labels: parseLabelSelector(query.get("labelSelector") ?? ""),
      fields: parseLabelSelector(query.get("fieldSelector") ?? "", false),
    };
  } catch (err) {
    if (err instanceof SelectorError) throw new ApiError(400, err.message, { reason: "BadRequest" });
    throw err;
  }
}

/** the page size: absent or < 1 is the default (reference §6.4); garbage was refused by checkListOptions */
function limitOf(query: URLSearchParams): number {
  const n = checkListOptions(query).limit;
  return n !== undefined && n >= 1 ? Math.min(n, 5000) : DEFAULT_LIMIT;
}

function fieldsOf(o: StoredObject): Record<string, string> {
  return { "metadata.name": o.metadata.name, "metadata.namespace": o.metadata.namespace };
}

export async function listObjects(d: KindDescriptor, ctx: KindContext, version: string, query: URLSearchParams) {
  checkListOptions(query);
  const sel = selectors(query);
  const history = sel.labels.find((r) => r.key === HISTORY_LABEL);
  if (history) return listHistory(d, ctx, version, query, sel.labels, sel.fields);
  const limit = limitOf(query);
  const token = query.get("continue");
  const after = token ? String(decodeContinue(token).after ?? "") : "";
  const items: StoredObject[] = [];
  let more = false;
  for (const o of await ctx.store.list(bucketOf(d, ctx))) {
    if (o.metadata.name <= after && after !== "") continue;
    if (!matches(sel.labels, o.metadata.labels) || !matches(sel.fields, fieldsOf(o))) continue;
    if (!(await canRead(d, ctx, o))) continue;
    if (items.length === limit) {
      more = true;
      break;
    }
    items.push(o);
  }
  return listEnvelope(d, version, items.map((o) => toResponse(d, version, o)), more ? encodeContinue({ after: items.at(-1)!.metadata.name }) : undefined);
}

async function listHistory(
  d: KindDescriptor,
  ctx: KindContext,
  version: string,
  query: URLSearchParams,
  labels: Requirement[],
  fields: Requirement[],
) {
  const v = d.versions.find((x) => x.name === version);
  if (!v?.stable) throw new ApiError(400, `history is only available on stable versions (v1, v2), not ${version}`, { reason: "BadRequest" });
  const ask = labels[0];
  const name = fields.length === 1 && fields[0]!.key === "metadata.name" && fields[0]!.op === "=" ? fields[0]!.value : undefined;
  if (labels.length !== 1 || ask?.op !== "=" || ask.value !== "true") {
    throw new ApiError(400, "unexpected field/label selector for history query", { reason: "BadRequest" });
  }
  if (name === undefined) {
    throw new ApiError(400, "history requires fieldSelector=metadata.name=<name>", { reason: "BadRequest" });
  }
  if (fields.length !== 1) throw new ApiError(400, "unexpected field/label selector for history query", { reason: "BadRequest" });
  // reading the history needs read access to the object as it is now
  const current = await ctx.store.get(bucketOf(d, ctx), name);
  let uid = current?.metadata.uid;
  if (current) await getObject(d, ctx, name);
  else {
    // a deleted object: judged by its last version
    const [latest] = await ctx.store.history(bucketOf(d, ctx), name, undefined, 1);
    if (!latest) return listEnvelope(d, version, [], undefined);
    if (!(await canRead(d, ctx, latest))) throw statusErrors.forbidden(d, name, d.actions.read);
    uid = latest.metadata.uid;
  }
  const limit = limitOf(query);
  const token = query.get("continue");
  const before = token ? historyCursor(decodeContinue(token).rv) : undefined;
  const page = await ctx.store.history(bucketOf(d, ctx), name, before || undefined, limit + 1, uid);
  const items = page.slice(0, limit);
  const next = page.length > limit ? encodeContinue({ rv: items.at(-1)!.metadata.resourceVersion }) : undefined;
  return listEnvelope(d, version, items.map((o) => toResponse(d, version, o)), next);
}

/** the resourceVersion a history token continues below; a forged one is refused like any bad token */
function historyCursor(rv: unknown): string | undefined {
  try {
    const parsed = parseResourceVersion(typeof rv === "string" ? rv : "x");
    if (parsed.value !== undefined && !parsed.beyondStore) return parsed.value;
  } catch { /* fall through */ }
  throw new ApiError(400, "invalid continue token", { reason: "BadRequest" });
}

function listEnvelope(d: KindDescriptor, version: string, items: unknown[], next: string | undefined) {
  return {
    kind: `${d.kind}List`,
    apiVersion: `${d.group}/${version}`,
    metadata: next ? { continue: next } : {},
    items,
  };
}
