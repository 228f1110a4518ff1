// Builds the configuration: defaults < config file < environment < flags,
// then validates the merged object once against the schema. Every problem is
// reported with the key, where the value came from, the value (unless the key
// is secret) and what was expected.
import { readFileSync } from "node:fs";
import { type } from "../lib/arktype.ts";
import * as jmespath from "jmespath";
import { parse as parseYaml, YAMLParseError } from "yaml";
import { configKeys, envNameOf, keyByPath, type ConfigKey } from "./keys.ts";
import { configSchema, type Config } from "./schema.ts";

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n  ${problems.join("\n  ")}`);
    this.name = "ConfigError";
    this.problems = problems;
  }
}

export interface ConfigSources {
  /** path of a YAML config file */
  file?: string;
  /** values given on the command line, by key path */
  flags?: Record<string, unknown>;
  /** the environment (only OUTPOST_* variables are read) */
  env?: Record<string, string | undefined>;
}

type Tree = Record<string, unknown>;

export function loadConfig(sources: ConfigSources = {}): Config {
  const origin = new Map<string, string>(); // key path -> where its value came from
  const merged: Tree = {};
  for (const key of configKeys) setPath(merged, key.path, Array.isArray(key.default) ? [...key.default] : key.default);
  // list blocks of the file only (no flag or environment variable sets them)
  for (const block of LIST_BLOCKS) merged[block] = [];
  // keys of the file only, with no flag or variable: a map the file may fill in
  for (const path of MAP_KEYS) setPath(merged, path, {});

  if (sources.file !== undefined) {
    const fileTree = readConfigFile(sources.file);
    mergeInto(merged, fileTree, "", origin, `in ${sources.file}`);
  }
  for (const key of configKeys) {
    const raw = sources.env?.[envNameOf(key)];
    if (raw === undefined) continue;
    setPath(merged, key.path, fromText(key, raw));
    origin.set(key.path, `from $${envNameOf(key)}`);
  }
  for (const [path, value] of Object.entries(sources.flags ?? {})) {
    const key = keyByPath(path);
    if (!key || value === undefined) continue;
    setPath(merged, path, typeof value === "string" ? fromText(key, value) : value);
    origin.set(path, `from ${key.flag.split(" ")[0]}`);
  }

  const result = configSchema(merged);
  if (result instanceof type.errors) {
    throw new ConfigError(result.map((e) => describeProblem(e.path.map(String), e.problem, merged, origin)));
  }
  checkPorts(result, origin);
  checkTls(result, origin);
  const proxy = result.logs.auth_proxy;
  if (proxy.enabled && !proxy.htpasswd_file) {
    throw new ConfigError([`logs.auth_proxy.htpasswd_file (${origin.get("logs.auth_proxy.htpasswd_file") ?? "default"}): the proxy needs an htpasswd file of its users`]);
  }
  checkStoreAuth(result, origin);
  checkOAuth(result, origin);
  return result;
}

/** OpenID Connect sign-in (auth.generic_oauth): a client id and the provider's endpoints are needed */
function checkOAuth(config: Config, origin: Map<string, string>) {
  const o = config.auth.generic_oauth;
  if (!o.enabled) return;
  const from = (key: string) => origin.get(`auth.generic_oauth.${key}`) ?? "default";
  const problems: string[] = [];
  if (!o.client_id) problems.push(`auth.generic_oauth.client_id (${from("client_id")}): the client id registered at the provider is needed`);
  if (!o.issuer && !(o.auth_url && o.token_url)) {
    problems.push(`auth.generic_oauth.issuer (${from("issuer")}): set the provider's issuer (discovery), or auth_url and token_url`);
  }
  if (o.client_secret && o.client_secret_file) {
    problems.push(`auth.generic_oauth.client_secret_file (${from("client_secret_file")}): set client_secret or client_secret_file, not both`);
  }
  // a JMESPath setting that does not parse would refuse every sign-in: refused at start instead
  for (const key of ["role_attribute_path", "groups_attribute_path", "org_attribute_path", "login_attribute_path", "email_attribute_path", "name_attribute_path"] as const) {
    const problem = jmesPathProblem(o[key]);
    if (problem) problems.push(`auth.generic_oauth.${key} (${from(key)}): not a valid JMESPath expression: ${problem}`);
  }
  if (problems.length) throw new ConfigError(problems);
}

/** why a JMESPath expression does not parse (the library's message), or undefined (also when empty) */
function jmesPathProblem(expression: string): string | undefined {
  if (!expression.trim()) return undefined;
  // compile() is the library's parser (its types declare only search)
  const { compile } = jmespath as unknown as { compile(expression: string): unknown };
  try {
    compile(expression);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** the stores' access control (docs/security.md): combinations that could not work are refused */
function checkStoreAuth(config: Config, origin: Map<string, string>) {
  const problems: string[] = [];
  const from = (path: string) => origin.get(path) ?? "default";
  for (const store of ["logs", "metrics"] as const) {
    const auth = config[store].auth;
    if (auth.tenant_from_client_cert !== "") {
      const tls = config.server.http_tls_config;
      if (!(tls.client_auth_type === "VerifyClientCertIfGiven" || tls.client_auth_type === "RequireAndVerifyClientCert")) {
        problems.push(`${store}.auth.tenant_from_client_cert (${from(`${store}.auth.tenant_from_client_cert`)}): only verified certificates name a tenant: set server.http_tls_config.client_auth_type to RequireAndVerifyClientCert or VerifyClientCertIfGiven`);
      }
      if (auth.client_cert_allowed_tenants.length === 0) {
        problems.push(`${store}.auth.client_cert_allowed_tenants (${from(`${store}.auth.client_cert_allowed_tenants`)}): list the tenants a certificate may name, or * for any`);
      }
    }
  }
  if (config.logs.auth.type === "tokens" && !config.logs.auth_enabled) {
    problems.push(`logs.auth.type (${from("logs.auth.type")}): tokens name a tenant, and logs.auth_enabled is off (everything is the tenant fake): turn it on`);
  }
  if (config.logs.auth.type === "tokens" && config.logs.auth_proxy.enabled) {
    problems.push(`logs.auth_proxy.enabled (${from("logs.auth_proxy.enabled")}): the htpasswd proxy sets X-Scope-OrgID for header mode; with logs.auth.type tokens the store checks the credentials itself: turn one off`);
  }
  if (config.security.totp_required_for_admins && !config.security.totp_enabled) {
    problems.push(`security.totp_required_for_admins (${from("security.totp_required_for_admins")}): administrators could never enrol with security.totp_enabled off: turn one of them around`);
  }
  if (problems.length) throw new ConfigError(problems);
}

/**
 * Client certificates need server TLS, and verifying them needs a CA: a
 * configuration asking for either without its prerequisite is refused.
 */
function checkTls(config: Config, origin: Map<string, string>) {
  const problems: string[] = [];
  for (const block of ["server", "dashboard"] as const) {
    const tls = config[block].http_tls_config;
    const at = `${block}.http_tls_config`;
    const from = (key: string) => origin.get(`${at}.${key}`) ?? "default";
    const server = tls.cert_file !== "" || tls.key_file !== "";
    if (server && (!tls.cert_file || !tls.key_file)) {
      problems.push(`${at} (${from(tls.cert_file ? "cert_file" : "key_file")}): cert_file and key_file must be set together`);
    }
    const wantsClients = (tls.client_auth_type !== "" && tls.client_auth_type !== "NoClientCert") || tls.client_ca_file !== "" || tls.client_ca !== "";
    if (wantsClients && !server) {
      problems.push(`${at}.client_auth_type (${from("client_auth_type")}): client certificates need server TLS first: set ${at}.cert_file and ${at}.key_file`);
    }
    const verifies = tls.client_auth_type === "VerifyClientCertIfGiven" || tls.client_auth_type === "RequireAndVerifyClientCert";
    if (verifies && !tls.client_ca_file && !tls.client_ca) {
      problems.push(`${at}.client_auth_type (${from("client_auth_type")}): ${tls.client_auth_type} needs a CA: set ${at}.client_ca_file or ${at}.client_ca`);
    }
  }
  if (problems.length) throw new ConfigError(problems);
}

function readConfigFile(file: string): Tree {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError([`config file ${file}: ${code === "ENOENT" ? "no such file" : (err as Error).message}`]);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text, { prettyErrors: true, uniqueKeys: true });
  } catch (err) {
    if (err instanceof YAMLParseError) {
      const pos = err.linePos?.[0];
      const where = pos ? `line ${pos.line}, column ${pos.col}: ` : "";
      throw new ConfigError([`config file ${file}: ${where}${err.message.split("\n")[0]}`]);
    }
    throw err;
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== "object" || Array.isArray(doc)) {
    throw new ConfigError([`config file ${file}: expected a mapping of blocks (server, dashboard, logs, metrics, security, auth, storage, backups, datasources)`]);
  }
  return doc as Tree;
}

function mergeInto(target: Tree, source: Tree, prefix: string, origin: Map<string, string>, where: string) {
  for (const [k, v] of Object.entries(source)) {
    const path = prefix ? `${prefix}.${k}` : k;
    const current = target[k];
    if (isTree(v) && isTree(current)) mergeInto(current, v, path, origin, where);
    else target[k] = v;
    if (!isTree(v)) origin.set(path, where);
    else if (!isTree(current)) origin.set(path, where);
  }
}

function describeProblem(path: string[], problem: string, merged: Tree, origin: Map<string, string>): string {
  const dotted = path.join(".");
  const key = keyByPath(dotted);
  const where = origin.get(dotted) ?? originOfAncestor(path, origin) ?? "";
  const label = where ? `${dotted} (${where})` : dotted;
  if (problem === "must be removed") {
    const parent = path.slice(0, -1).join(".");
    const allowed = configKeys.filter((k) => k.path.startsWith(parent + ".")).map((k) => k.path.slice(parent.length + 1));
    if (path[0] === "datasources") return `${label}: unknown field of a provisioned data source; fields: ${PROVISIONING_FIELDS.join(", ")}`;
    return parent
      ? `${label}: unknown key; ${parent} accepts ${allowed.join(", ")}`
      : `${label}: unknown block; the config file accepts ${blocks().join(", ")}`;
  }
  const value = getPath(merged, path);
  const shown = key?.secret || isSecretPath(path) ? "<redacted>" : JSON.stringify(value) ?? String(value);
  // union problems arrive with the path in front: "server.edition must be ..."
  const expected = problem.replace(new RegExp(`^${dotted.replace(/[.]/g, "\\.")}\\s+`), "").replace(/\s*\(was [^)]*\)$/, "");
  return `${label}: ${expected}, got ${shown}`;
}

function originOfAncestor(path: string[], origin: Map<string, string>): string | undefined {
  for (let i = path.length - 1; i > 0; i--) {
    const o = origin.get(path.slice(0, i).join("."));
    if (o) return o;
  }
  return undefined;
}

function checkPorts(config: Config, origin: Map<string, string>) {
  const listeners: Array<[string, number, boolean]> = [
    ["dashboard.http_port", config.dashboard.http_port, true],
    ["logs.http_port", config.logs.http_port, config.logs.enabled],
    ["metrics.http_port", config.metrics.http_port, config.metrics.enabled],
    ["logs.auth_proxy.port", config.logs.auth_proxy.port, config.logs.enabled && config.logs.auth_proxy.enabled],
  ];
  const seen = new Map<number, string>();
  const problems: string[] = [];
  for (const [path, port, enabled] of listeners) {
    if (!enabled || port === 0) continue;
    const other = seen.get(port);
    if (other) problems.push(`${path} (${origin.get(path) ?? "default"}): port ${port} is already used by ${other}`);
    else seen.set(port, path);
  }
  if (problems.length) throw new ConfigError(problems);
}

/** Text from an environment variable or flag, converted to the key's kind where it reads as one. */
function fromText(key: ConfigKey, text: string): unknown {
  if (key.kind === "number" && /^-?\d+(\.\d+)?$/.test(text.trim())) return Number(text);
  if (key.kind === "size" && /^\d+$/.test(text.trim())) return Number(text);
  if (key.kind === "list") return text.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (key.kind === "boolean") {
    const t = text.trim().toLowerCase();
    if (t === "true" || t === "1") return true;
    if (t === "false" || t === "0") return false;
  }
  return text;
}

/** blocks of the file that hold a list rather than keys: datasources (provisioning) */
const LIST_BLOCKS = ["datasources"] as const;
/** the log store's otlp_config, a per-tenant limit of nested rules (docs/opentelemetry.md) */
const MAP_KEYS = ["logs.limits.otlp_config"] as const;
const PROVISIONING_FIELDS = [
  "name", "type", "uid", "orgId", "access", "url", "user", "database", "basicAuth", "basicAuthUser",
  "withCredentials", "isDefault", "jsonData", "secureJsonData", "version", "editable",
];

export function blocks(): string[] {
  return [...new Set([...configKeys.map((k) => k.path.split(".")[0]!), ...LIST_BLOCKS])];
}

/** values under a provisioned data source's secureJsonData (or any password) are never shown */
function isSecretPath(path: string[]): boolean {
  return path.some((p) => p === "secureJsonData" || /password/i.test(p));
}

function isTree(v: unknown): v is Tree {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function setPath(tree: Tree, path: string, value: unknown) {
  const parts = path.split(".");
  let node = tree;
  for (const part of parts.slice(0, -1)) {
    if (!isTree(node[part])) node[part] = {};
    node = node[part] as Tree;
  }
  node[parts[parts.length - 1]!] = value;
}

function getPath(tree: Tree, path: string[]): unknown {
  let node: unknown = tree;
  for (const part of path) node = isTree(node) ? node[part] : undefined;
  return node;
}
