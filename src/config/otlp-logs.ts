// The log store's otlp_config (a per-tenant limit, the real product's shape)
// and the default index labels of OTLP resource attributes: checked here,
// applied by apps/logstore/core/otlp-config.ts.
import { type } from "../lib/arktype.ts";
import { compileAnchored } from "../lib/re2.ts";

export type OtlpAction = "index_label" | "structured_metadata" | "drop";

/** the real product's default index labels (its "blessed" resource attributes) */
export const DEFAULT_INDEX_LABEL_ATTRIBUTES = [
  "service.name", "service.namespace", "service.instance.id", "deployment.environment", "cloud.region", "cloud.availability_zone",
  "k8s.cluster.name", "k8s.namespace.name", "k8s.pod.name", "k8s.container.name", "container.name", "k8s.replicaset.name",
  "k8s.deployment.name", "k8s.statefulset.name", "k8s.daemonset.name", "k8s.cronjob.name", "k8s.job.name",
];

const validRegex = (source: string): boolean => {
  try {
    compileAnchored(source);
    return true;
  } catch {
    return false;
  }
};

const attributesRule = (actions: readonly OtlpAction[]) =>
  type({
    "action?": type.enumerated(...actions).describe(`one of ${actions.join(", ")}`),
    "attributes?": "string[]",
    "regex?": type("string").narrow((s, ctx) => validRegex(s) || ctx.mustBe("a valid RE2 regular expression")),
  }).narrow((r, ctx) =>
    (r.attributes?.length ?? 0) > 0 === (r.regex === undefined) || ctx.mustBe("a rule with either attributes or regex (one of the two)"),
  );

export const otlpConfigSchema = type({
  "resource_attributes?": {
    "ignore_defaults?": "boolean",
    "attributes_config?": attributesRule(["index_label", "structured_metadata", "drop"]).array(),
  },
  "scope_attributes?": attributesRule(["structured_metadata", "drop"]).array(),
  "log_attributes?": attributesRule(["index_label", "structured_metadata", "drop"]).array(),
  "severity_text_as_label?": "boolean",
});

export type OtlpConfig = typeof otlpConfigSchema.infer;

/** a runtime-config value for otlp_config, checked; undefined when invalid (the overrides reader names the key) */
export function otlpConfigValue(raw: unknown): OtlpConfig | undefined {
  const out = otlpConfigSchema(raw ?? {});
  return out instanceof type.errors ? undefined : out;
}

