// A verified client certificate → a tenant (opt-in: <store>.auth.tenant_from_client_cert).
// Off by default: the spec's mTLS authenticates only. Only a certificate that
// chains to the client CA is mapped; the field chosen names the tenant, which
// must be on the allow-list (or the list is ["*"]). san_uri takes the last
// path segment of the first URI name (spiffe://site/tenants/team-a → team-a),
// since a whole URI is never a valid tenant id.
import { ApiError } from "../lib/errors.ts";
import { tenantIdProblem } from "../lib/tenant.ts";
import type { PeerCertificate } from "../platform/tls.ts";

export const CERT_TENANT_FIELDS = ["cn", "ou", "san_dns", "san_uri"] as const;
export type CertTenantField = (typeof CERT_TENANT_FIELDS)[number];

export interface CertTenantOptions {
  /** "" turns the mapping off */
  from: CertTenantField | "";
  /** tenants a certificate may name; ["*"] for any */
  allowed: readonly string[];
}

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

function altNames(san: string, kind: "DNS" | "URI"): string[] {
  return san
    .split(/,\s*/)
    .filter((part) => part.startsWith(`${kind}:`))
    .map((part) => part.slice(kind.length + 1).replace(/^"|"$/g, ""));
}

/** the name the field holds, before any check */
export function certField(cert: PeerCertificate, from: CertTenantField): string | undefined {
  switch (from) {
    case "cn":
      return first(cert.subject.CN);
    case "ou":
      return first(cert.subject.OU);
    case "san_dns":
      return altNames(cert.subjectaltname, "DNS")[0];
    case "san_uri": {
      const uri = altNames(cert.subjectaltname, "URI")[0];
      if (uri === undefined) return undefined;
      let pathname: string;
      try {
        pathname = new URL(uri).pathname;
      } catch {
        return undefined;
      }
      // the path only: a query or fragment never names the tenant
      const path = pathname.split("/").filter(Boolean);
      return path[path.length - 1];
    }
  }
}

/**
 * The tenant of a request's certificate, or undefined when the mapping is off
 * or the certificate is absent or not verified (the request is then judged by
 * the store's mode alone). A verified certificate whose field is missing, not
 * a valid tenant id, or not allowed is refused with 403.
 */
export function tenantOfCertificate(o: CertTenantOptions, cert: PeerCertificate | undefined): string | undefined {
  if (o.from === "" || !cert || !cert.authorized) return undefined;
  const name = certField(cert, o.from);
  if (name === undefined || name === "") throw new ApiError(403, `the client certificate has no ${o.from} to take the tenant from`);
  const problem = tenantIdProblem(name);
  if (problem) throw new ApiError(403, `the client certificate's ${o.from} is not a tenant id: ${problem}`);
  if (!o.allowed.includes("*") && !o.allowed.includes(name)) throw new ApiError(403, `the client certificate's tenant ${name} is not in the allowed list`);
  return name;
}
