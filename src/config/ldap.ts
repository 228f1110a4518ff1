// The LDAP servers file (auth.ldap.config_file) in the real product's ldap.toml
// format: [[servers]] with their connection, bind, search, [servers.attributes]
// and [[servers.group_mappings]]. Parsed with smol-toml, checked once; every
// problem names the field (servers[1].group_mappings[0].org_role). bind_dn and
// bind_password may be `$__env{VAR}` or `$__file{/path}` (the real product's
// variable expansion), so the password need not sit in the file. Certificates
// named by root_ca_cert, client_cert and client_key are read here, so a
// missing one stops the start rather than the first sign-in.
import { readFileSync } from "node:fs";
import { parse as parseToml } from "smol-toml";
import { type } from "../lib/arktype.ts";

export const LDAP_ORG_ROLES = ["Admin", "Editor", "Viewer", "None"] as const;
export type LdapOrgRole = (typeof LDAP_ORG_ROLES)[number];

export interface LdapGroupMapping {
  groupDn: string;
  orgId: number;
  orgRole: LdapOrgRole;
  /** undefined: the mapping says nothing about the server admin flag */
  serverAdmin: boolean | undefined;
}

export interface LdapServerConfig {
  /** one host, or several separated by spaces (tried in order, as the real product does) */
  hosts: string[];
  port: number;
  useSsl: boolean;
  startTls: boolean;
  sslSkipVerify: boolean;
  minTlsVersion: string;
  /** PEM text of the CA certificates the server's certificate is checked against (empty: the system's) */
  rootCaCert: string;
  clientCert: string;
  clientKey: string;
  bindDn: string;
  /** never logged, never shown */
  bindPassword: string;
  /** seconds, for connecting and for each operation */
  timeoutSeconds: number;
  searchFilter: string;
  searchBaseDns: string[];
  groupSearchFilter: string;
  groupSearchBaseDns: string[];
  groupSearchFilterUserAttribute: string;
  attributes: { name: string; surname: string; username: string; memberOf: string; email: string };
  groupMappings: LdapGroupMapping[];
}

export interface LdapConfig {
  servers: LdapServerConfig[];
}

const nonEmpty = type("string > 0").describe("a non-empty string");
const stringList = type("string[]").describe("a list of strings");

const GroupMapping = type({
  group_dn: nonEmpty,
  "org_id?": type("number.integer >= 1").describe("an organization id (1 or more)"),
  "org_role?": type.enumerated(...LDAP_ORG_ROLES).describe("Admin, Editor, Viewer or None"),
  "grafana_admin?": "boolean",
}).onUndeclaredKey("reject");

const Server = type({
  host: nonEmpty,
  "port?": type("1 <= number.integer <= 65535").describe("a port from 1 to 65535"),
  "use_ssl?": "boolean",
  "start_tls?": "boolean",
  "ssl_skip_verify?": "boolean",
  "min_tls_version?": type("'TLS1.2' | 'TLS1.3'").describe("TLS1.2 or TLS1.3"),
  "tls_ciphers?": stringList,
  "root_ca_cert?": "string",
  "client_cert?": "string",
  "client_key?": "string",
  "bind_dn?": "string",
  "bind_password?": "string",
  "timeout?": type("1 <= number.integer <= 300").describe("seconds, from 1 to 300"),
  search_filter: type("string").narrow((s, ctx) => s.includes("%s") || ctx.mustBe("a filter holding %s (the user name), such as (uid=%s)")),
  search_base_dns: type("string[] > 0").describe("a non-empty list of base DNs"),
  "group_search_filter?": "string",
  "group_search_base_dns?": stringList,
  "group_search_filter_user_attribute?": "string",
  "attributes?": type({
    "name?": "string",
    "surname?": "string",
    "username?": "string",
    "member_of?": "string",
    "email?": "string",
  }).onUndeclaredKey("reject"),
  "group_mappings?": GroupMapping.array(),
}).onUndeclaredKey("reject");

const File = type({
  servers: Server.array().atLeastLength(1).describe("at least one [[servers]] block"),
  "verbose_logging?": "boolean",
}).onUndeclaredKey("reject");

export class LdapConfigError extends Error {
  constructor(file: string, problems: string[]) {
    super(`LDAP config ${file}:\n  ${problems.join("\n  ")}`);
    this.name = "LdapConfigError";
  }
}

/** `$__env{VAR}` and `$__file{/path}` (trailing white space of the file dropped); anything else as written */
function expand(value: string, field: string, env: Record<string, string | undefined>, problems: string[]): string {
  const m = /^\$__(env|file)\{([^}]*)\}$/.exec(value.trim());
  if (!m) return value;
  if (m[1] === "env") {
    const v = env[m[2]!];
    if (v === undefined) problems.push(`${field}: environment variable ${m[2]} is not set`);
    return v ?? "";
  }
  try {
    return readFileSync(m[2]!, "utf8").replace(/\s+$/, "");
  } catch (err) {
    problems.push(`${field}: cannot read ${m[2]}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return "";
  }
}

function readPem(path: string, field: string, problems: string[]): string {
  if (!path) return "";
  try {
    const text = readFileSync(path, "utf8");
    if (!/-----BEGIN [A-Z ]+-----/.test(text)) problems.push(`${field}: ${path} holds no PEM block`);
    return text;
  } catch (err) {
    problems.push(`${field}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return "";
  }
}

/** reads and checks the file; throws LdapConfigError naming each bad field */
export function loadLdapConfig(file: string, env: Record<string, string | undefined> = process.env): LdapConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new LdapConfigError(file, [`cannot read the file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} (auth.ldap.config_file)`]);
  }
  return parseLdapConfig(text, file, env);
}

export function parseLdapConfig(text: string, file: string, env: Record<string, string | undefined> = process.env): LdapConfig {
  let tree: unknown;
  try {
    tree = parseToml(text);
  } catch (err) {
    throw new LdapConfigError(file, [`not valid TOML: ${(err as Error).message.split("\n")[0]}`]);
  }
  const parsed = File(tree);
  if (parsed instanceof type.errors) {
    throw new LdapConfigError(file, parsed.map((e) => {
      const field = fieldName(e.path.map(String));
      const problem = e.problem.startsWith(`${field} `) ? e.problem.slice(field.length + 1) : e.problem;
      return `${field}: ${problem === "must be removed" ? "unknown key" : problem}`;
    }));
  }
  const problems: string[] = [];
  const servers = parsed.servers.map((s, i): LdapServerConfig => {
    const at = (f: string) => `servers[${i}].${f}`;
    if (s.use_ssl && s.start_tls) problems.push(`${at("start_tls")}: use_ssl and start_tls exclude each other (LDAPS is TLS from the start)`);
    if (!!s.client_cert !== !!s.client_key) problems.push(`${at(s.client_cert ? "client_key" : "client_cert")}: client_cert and client_key go together`);
    if (s.group_search_filter && !(s.group_search_base_dns ?? []).length) problems.push(`${at("group_search_base_dns")}: group_search_filter needs the base DNs to search groups in`);
    const attributes = s.attributes ?? {};
    return {
      hosts: s.host.trim().split(/\s+/),
      port: s.port ?? (s.use_ssl ? 636 : 389),
      useSsl: s.use_ssl ?? false,
      startTls: s.start_tls ?? false,
      sslSkipVerify: s.ssl_skip_verify ?? false,
      minTlsVersion: s.min_tls_version ?? "TLS1.2",
      rootCaCert: readPem(s.root_ca_cert ?? "", at("root_ca_cert"), problems),
      clientCert: readPem(s.client_cert ?? "", at("client_cert"), problems),
      clientKey: readPem(s.client_key ?? "", at("client_key"), problems),
      bindDn: expand(s.bind_dn ?? "", at("bind_dn"), env, problems),
      bindPassword: expand(s.bind_password ?? "", at("bind_password"), env, problems),
      timeoutSeconds: s.timeout ?? 10,
      searchFilter: s.search_filter,
      searchBaseDns: s.search_base_dns,
      groupSearchFilter: s.group_search_filter ?? "",
      groupSearchBaseDns: s.group_search_base_dns ?? [],
      groupSearchFilterUserAttribute: s.group_search_filter_user_attribute ?? "",
      attributes: {
        name: attributes.name ?? "givenName",
        surname: attributes.surname ?? "sn",
        username: attributes.username ?? "cn",
        memberOf: attributes.member_of ?? "memberOf",
        email: attributes.email ?? "email",
      },
      groupMappings: (s.group_mappings ?? []).map((g) => ({
        groupDn: g.group_dn,
        orgId: g.org_id ?? 1,
        orgRole: g.org_role ?? "Viewer",
        serverAdmin: g.grafana_admin,
      })),
    };
  });
  if (problems.length) throw new LdapConfigError(file, problems);
  return { servers };
}

/** ["servers", "1", "group_mappings", "0", "org_role"] -> servers[1].group_mappings[0].org_role */
function fieldName(path: string[]): string {
  if (!path.length) return "(the file)";
  return path.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), "");
}
