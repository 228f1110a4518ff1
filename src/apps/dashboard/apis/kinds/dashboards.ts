// Dashboards (dashboard.svc.app): spec is the dashboard JSON. The listed
// top-level fields are type-checked when present, unknown ones are kept;
// spec.version follows metadata.generation.
import { type } from "arktype";
import { statusErrors, type KindDescriptor } from "../kind.ts";
import { checkSpec } from "../spec-check.ts";

const DashboardSpec = type({
  title: "string",
  "annotations?": { "list?": "unknown[]" },
  "editable?": "boolean",
  "fiscalYearStartMonth?": "number",
  "graphTooltip?": "number",
  "links?": "unknown[]",
  "panels?": "unknown[]",
  "preload?": "boolean",
  "schemaVersion?": "number",
  "tags?": "string[]",
  "templating?": { "list?": "unknown[]" },
  "time?": { "from?": "string", "to?": "string" },
  "timepicker?": "object",
  "timezone?": "string",
  "version?": "number",
});

const folderScopes = (chain: string[]) => chain.map((f) => `folders:uid:${f}`);

export function dashboardKind(): KindDescriptor {
  const d: KindDescriptor = {
    group: "dashboard.svc.app",
    resource: "dashboards",
    kind: "Dashboard",
    versions: [
      { name: "v1", stable: true, defaultOn: true },
      { name: "v1beta1", stable: false, defaultOn: false },
      { name: "v0alpha1", stable: false, defaultOn: false },
    ],
    maxNameLength: 40,
    inFolders: true,
    staleStatus: 409,
    actions: { read: "dashboards:read", create: "dashboards:create", write: "dashboards:write", delete: "dashboards:delete" },
    validateSpec(spec, name) {
      checkSpec(d, DashboardSpec, spec, name);
      const s = { ...(spec as Record<string, unknown>) };
      if (!String(s.title).trim()) throw statusErrors.invalid(d, name, "spec.title", "dashboard title cannot be empty");
      return s;
    },
    async scopes(ctx, name, folder) {
      return [`dashboards:uid:${name}`, ...folderScopes(await ctx.folderChain(folder))];
    },
    async createScopes(ctx, _name, folder) {
      return folder ? folderScopes(await ctx.folderChain(folder)) : ["folders:uid:general"];
    },
    async beforeWrite(_ctx, next) {
      next.spec = { ...next.spec, version: next.metadata.generation };
    },
  };
  return d;
}
