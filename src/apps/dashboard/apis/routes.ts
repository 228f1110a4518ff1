// The /apis routes: one set of handlers for every registered kind, plus
// discovery. A version is served when it is on by default or named in
// dashboard.feature_toggles ("-group/version" turns a default one off).
import type { Context } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { queryParams } from "../../../lib/http/query.ts";
import { readJson } from "../../../lib/http/base-app.ts";
import { parseResourceVersion } from "./query-options.ts";
import { identityOf, type Router } from "../access/guard.ts";
import { orgIdOfNamespace, type NamespaceContext } from "../core/identity/namespaces.ts";
import { createKindContext } from "./context.ts";
import { toResponse } from "./envelope.ts";
import { servedVersions, type KindContext, type KindDescriptor } from "./kind.ts";
import { listObjects } from "./lists.ts";
import { createObject, deleteObject, getObject, updateObject } from "./objects.ts";
import type { ResourceStore } from "./store.ts";

export interface ApisDeps {
  kinds: KindDescriptor[];
  store: ResourceStore;
  namespaces: NamespaceContext;
  featureToggles: readonly string[];
  now: () => number;
}

const notServed = () =>
  new ApiError(404, "the server could not find the requested resource", { reason: "NotFound" });

export function registerApis(r: Router, deps: ApisDeps): void {
  const served = new Map<string, KindDescriptor>();
  for (const d of deps.kinds) for (const v of servedVersions(d, deps.featureToggles)) served.set(`${d.group}/${v}/${d.resource}`, d);

  const kindOf = (c: Context): { d: KindDescriptor; version: string } => {
    const { group, version, resource } = c.req.param() as Record<string, string>;
    const d = served.get(`${group}/${version}/${resource}`);
    if (!d) throw notServed();
    return { d, version: version! };
  };

  const contextOf = (c: Context): KindContext => {
    const asked = c.req.param("namespace")!;
    const orgId = orgIdOfNamespace(asked, deps.namespaces);
    if (orgId === undefined) throw new ApiError(400, `invalid namespace "${asked}"`, { reason: "BadRequest" });
    const identity = identityOf(c);
    if (identity.orgId !== orgId) {
      throw new ApiError(403, `the namespace "${asked}" is not one of the caller's organizations`, { reason: "Forbidden" });
    }
    // "org-1" is an alias: objects live under the canonical name ("default")
    return createKindContext(identity, orgId, deps.store, deps.namespaces, deps.now);
  };

  // the organization of the namespace decides which permissions apply
  const access = {
    signedIn: true as const,
    orgOf: (c: Context) => {
      const org = orgIdOfNamespace(c.req.param("namespace") ?? "", deps.namespaces);
      return org === undefined ? "-1" : String(org);
    },
  };
  const base = "/apis/:group/:version/namespaces/:namespace/:resource";

  r.get("/apis", { signedIn: true }, (c) => c.json(discovery(deps)));

  r.get(base, access, async (c) => {
    const { d, version } = kindOf(c);
    return c.json(await listObjects(d, contextOf(c), version, new URL(c.req.url).searchParams));
  });

  r.post(base, access, async (c) => {
    const { d, version } = kindOf(c);
    const ctx = contextOf(c);
    return c.json(toResponse(d, version, await createObject(d, ctx, await readJson(c))), 201);
  });

  r.get(`${base}/:name`, access, async (c) => {
    const { d, version } = kindOf(c);
    const object = await getObject(d, contextOf(c), c.req.param("name")!, parseResourceVersion(queryParams(c).one("resourceVersion")));
    return c.json(toResponse(d, version, object));
  });

  r.put(`${base}/:name`, access, async (c) => {
    const { d, version } = kindOf(c);
    const ctx = contextOf(c);
    return c.json(toResponse(d, version, await updateObject(d, ctx, c.req.param("name")!, await readJson(c))));
  });

  r.delete(`${base}/:name`, access, async (c) => {
    const { d } = kindOf(c);
    const object = await deleteObject(d, contextOf(c), c.req.param("name")!, new URL(c.req.url).searchParams);
    return c.json({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name: object.metadata.name, group: d.group, kind: d.resource, uid: object.metadata.uid },
      code: 200,
    });
  });

  r.get(`${base}/:name/:subresource`, access, async (c) => {
    const { d, version } = kindOf(c);
    const handler = d.subresources?.[c.req.param("subresource")!];
    if (!handler) throw notServed();
    const ctx = contextOf(c);
    return c.json(await handler(ctx, await getObject(d, ctx, c.req.param("name")!), version));
  });
}

function discovery(deps: ApisDeps) {
  const groups = new Map<string, string[]>();
  for (const d of deps.kinds) {
    const list = groups.get(d.group) ?? [];
    for (const v of servedVersions(d, deps.featureToggles)) if (!list.includes(v)) list.push(v);
    groups.set(d.group, list);
  }
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: [...groups.entries()]
      .filter(([, versions]) => versions.length > 0)
      .map(([name, versions]) => ({
        name,
        versions: versions.map((version) => ({ groupVersion: `${name}/${version}`, version })),
        preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
      })),
  };
}
