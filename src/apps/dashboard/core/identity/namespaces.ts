// Organizations and /apis namespaces (spec "Namespace forms"): on-prem,
// organization 1 is "default" and others "org-<id>" ("org-1" is accepted as
// an alias of "default"); a cloud instance is one stack, "stacks-<stackId>".

export interface NamespaceContext {
  edition: "oss" | "enterprise" | "cloud";
  stackId: number;
}

export function namespaceOf(orgId: number, ctx: NamespaceContext): string {
  if (ctx.edition === "cloud") return `stacks-${ctx.stackId}`;
  return orgId === 1 ? "default" : `org-${orgId}`;
}

/** the organization a namespace names, or undefined when it is malformed or foreign */
export function orgIdOfNamespace(namespace: string, ctx: NamespaceContext): number | undefined {
  if (ctx.edition === "cloud") return namespace === `stacks-${ctx.stackId}` ? 1 : undefined;
  if (namespace === "default") return 1;
  const m = /^org-([1-9]\d{0,9})$/.exec(namespace);
  return m ? Number(m[1]) : undefined;
}
