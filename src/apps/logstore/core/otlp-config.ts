// How OTLP attributes land in the log store (the real product's otlp_config,
// a per-tenant limit): each resource, scope or log attribute is an index
// label, structured metadata (the default) or dropped, chosen by the first
// rule naming it (`attributes`) or matching it (`regex`, RE2, anchored as
// Prometheus relabel regexes are). The resource rules start with the default
// index labels (logs.otlp.default_resource_attributes_as_index_labels)
// unless `ignore_defaults`. Rules are compiled once per config object.
import { compileAnchored, type Regex } from "../../../lib/re2.ts";
import type { OtlpAction, OtlpConfig } from "../../../config/otlp-logs.ts";

export { DEFAULT_INDEX_LABEL_ATTRIBUTES, otlpConfigValue, type OtlpAction, type OtlpConfig } from "../../../config/otlp-logs.ts";

interface CompiledRule {
  action: OtlpAction;
  names?: Set<string>;
  regex?: Regex;
}

export interface OtlpRules {
  resource(name: string): OtlpAction;
  scope(name: string): OtlpAction;
  log(name: string): OtlpAction;
  severityTextAsLabel: boolean;
}

const compileRules = (rules: ReadonlyArray<{ action?: OtlpAction; attributes?: string[]; regex?: string }> = []): CompiledRule[] =>
  rules.map((r) => ({
    action: r.action ?? "structured_metadata",
    ...(r.attributes?.length ? { names: new Set(r.attributes) } : {}),
    ...(r.regex !== undefined ? { regex: compileAnchored(r.regex) } : {}),
  }));

function chooser(rules: CompiledRule[]): (name: string) => OtlpAction {
  if (!rules.length) return () => "structured_metadata";
  const memo = new Map<string, OtlpAction>();
  return (name) => {
    let action = memo.get(name);
    if (action) return action;
    action = rules.find((r) => r.names?.has(name) || r.regex?.test(name))?.action ?? "structured_metadata";
    if (memo.size < 10_000 && name.length <= 256) memo.set(name, action);
    return action;
  };
}

const compiled = new WeakMap<object, Map<string, OtlpRules>>();

/** the rules of a tenant's config, with the process's default index labels first (unless ignore_defaults) */
export function otlpRules(config: OtlpConfig, defaultIndexLabels: readonly string[]): OtlpRules {
  const key = defaultIndexLabels.join("\n");
  let byDefaults = compiled.get(config);
  const hit = byDefaults?.get(key);
  if (hit) return hit;
  const resource = compileRules(config.resource_attributes?.attributes_config);
  if (!config.resource_attributes?.ignore_defaults && defaultIndexLabels.length) resource.unshift({ action: "index_label", names: new Set(defaultIndexLabels) });
  const rules: OtlpRules = {
    resource: chooser(resource),
    scope: chooser(compileRules(config.scope_attributes)),
    log: chooser(compileRules(config.log_attributes)),
    severityTextAsLabel: config.severity_text_as_label === true,
  };
  if (!byDefaults) compiled.set(config, (byDefaults = new Map()));
  byDefaults.set(key, rules);
  return rules;
}
