// A loud start (issue 22): a store reachable beyond this machine that trusts
// X-Scope-OrgID as sent, with no client certificates asked for, lets anyone
// who reaches its port write and read every tenant. Not refused (a site may
// have a firewall or a proxy in front), but said at every start, with the
// settings that close it.
import type { Config } from "../config/schema.ts";

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|\[::1\]|localhost)$/i;

export function exposureWarnings(config: Config): string[] {
  if (LOOPBACK.test(config.server.host)) return [];
  const tls = config.server.http_tls_config;
  const mutual = tls.cert_file !== "" && tls.client_auth_type === "RequireAndVerifyClientCert";
  if (mutual) return [];
  const out: string[] = [];
  const stores = [
    ["logs", "log store", config.logs.enabled, config.logs.http_port, config.logs.auth.type] as const,
    ["metrics", "metrics store", config.metrics.enabled, config.metrics.http_port, config.metrics.auth.type] as const,
  ];
  for (const [key, name, enabled, port, mode] of stores) {
    if (!enabled || mode !== "header") continue;
    out.push(
      `the ${name} listens on ${config.server.host}:${port} in header mode without mutual TLS: anyone who can reach it can write and read ` +
        `every tenant by setting X-Scope-OrgID. Set ${key}.auth.type: tokens (--${key}-auth-type tokens) and give clients access policy tokens, ` +
        `or require client certificates (server.http_tls_config.client_auth_type: RequireAndVerifyClientCert), or listen on 127.0.0.1 (--host)`,
    );
  }
  return out;
}
