// The whole configuration as one arktype schema (DESIGN rule 6). Every key is
// required here: defaults come from keys.ts, so a value missing from the
// merged object is a programming error, and a key the schema does not know
// is refused wherever it came from.
import { Cron } from "croner";
import { type } from "../lib/arktype.ts";
import { normalizeOrigin } from "../lib/http/cors.ts";
import { parseDuration, parseSize } from "../lib/units.ts";
import { otlpConfigSchema } from "./otlp-logs.ts";

const port = type("0 <= number.integer <= 65535").describe("an integer from 0 to 65535");

/** bytes as an integer, or text with a unit: "16MiB", "256KB" (go-humanize rules, as Loki) */
const size = type("number.integer >= 0")
  .or(type("string").pipe((s, ctx) => parseSize(s) ?? ctx.error("a size such as 16MiB or 256KB")))
  .describe("a size in bytes or with a unit such as 16MiB or 256KB");

/** a size of at least one byte: a limit that cannot be turned off (0 would refuse everything) */
const positiveSize = size.pipe((n: number, ctx) => (n >= 1 ? n : ctx.error("a size of at least 1 byte")));

/** Prometheus-style duration text, converted to milliseconds */
const duration = type("string").pipe((s, ctx) => parseDuration(s) ?? ctx.error("a duration such as 10s, 1m30s or 7d"));

/** a duration, or empty: not set (null), another key then applies */
const durationOrUnset = type("string").pipe((s, ctx) => (s.trim() === "" ? null : (parseDuration(s) ?? ctx.error("a duration such as 744h or 1y, or empty"))));

const nonEmpty = type("string > 0").describe("a non-empty string");

/** a duration above zero: how often something runs */
const positiveDuration = duration.pipe((ms: number, ctx) => (ms > 0 ? ms : ctx.error("a duration above 0s such as 10s or 10m")));

/** a cap on the data dir: bytes (or a size with a unit), or a percentage of the filesystem's size; 0 turns it off */
export type DiskCap = { bytes: number } | { percent: number } | undefined;
const diskCap = type("number.integer >= 0")
  .or(
    type("string").pipe((s, ctx) => {
      const pct = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(s);
      if (pct) {
        const percent = Number(pct[1]);
        return percent > 0 && percent <= 100 ? { percent } : ctx.error("a percentage above 0% and at most 100%");
      }
      return parseSize(s) ?? ctx.error("a size such as 50GiB, or a percentage of the filesystem such as 80%");
    }),
  )
  .pipe((v): DiskCap => (typeof v === "number" ? (v > 0 ? { bytes: v } : undefined) : v))
  .describe("a size such as 50GiB, or a percentage of the filesystem such as 80% (0: no cap)");

/** an http(s) URL, or empty (not set) */
const httpUrlOrEmpty = type("string").narrow((s, ctx) => s === "" || /^https?:\/\/[^\s/]+/i.test(s) || ctx.mustBe("an http(s) URL, or empty"));

/** croner's reading of a cron expression: 5 fields (the real product's), 6 with seconds first, or a nickname (@daily) */
function isCronExpression(text: string): boolean {
  try {
    new Cron(text, { paused: true }).stop();
    return true;
  } catch {
    return false;
  }
}

/** a whole number of things, 0 or more (0 often turns a limit off) */
const count = type("number.integer >= 0").describe("a whole number");

/** dskit's http_tls_config: server TLS, and which client certificates it asks for */
export const CLIENT_AUTH_TYPES = ["NoClientCert", "RequestClientCert", "RequireAnyClientCert", "VerifyClientCertIfGiven", "RequireAndVerifyClientCert"] as const;
const tlsConfig = {
  cert_file: "string",
  key_file: "string",
  client_auth_type: type.enumerated("", ...CLIENT_AUTH_TYPES).describe(`one of ${CLIENT_AUTH_TYPES.join(", ")}`),
  client_ca_file: "string",
  client_ca: "string",
} as const;

/**
 * A data source of the config file's datasources block, in the real product's
 * provisioning-file shape (camelCase fields), created or updated at startup.
 */
const provisionedDataSource = type({
  name: nonEmpty,
  type: nonEmpty,
  "uid?": "string",
  "orgId?": type("number.integer >= 1").describe("an organization id"),
  "access?": "'proxy' | 'direct'",
  "url?": "string",
  "user?": "string",
  "database?": "string",
  "basicAuth?": "boolean",
  "basicAuthUser?": "string",
  "withCredentials?": "boolean",
  "isDefault?": "boolean",
  "jsonData?": type("Record<string, unknown>").describe("a mapping"),
  // a secret, or {name: <secure value>} (the secure value must list provisioning.svc.app in spec.decrypters)
  "secureJsonData?": type.Record("string", type("string").or({ name: "string" })).describe("a mapping of names to secret strings or {name: <secure value>}"),
  "version?": "number.integer",
  "editable?": "boolean",
});
export type ProvisionedDataSource = typeof provisionedDataSource.infer;

/** a store's access control (issue 22) */
const storeAuth = {
  type: "'header' | 'tokens'",
  tenant_from_client_cert: type("'' | 'cn' | 'ou' | 'san_dns' | 'san_uri'").describe("one of cn, ou, san_dns, san_uri, or empty"),
  client_cert_allowed_tenants: type("string[]").describe("a list of tenant ids, or *"),
} as const;

export const configSchema = type({
  server: {
    host: nonEmpty,
    target: "'all' | 'dashboard' | 'stores'",
    node_name: "string",
    advertise_address: type("string").narrow((s, ctx) => s === "" || /^[A-Za-z0-9.:\[\]-]+$/.test(s) || ctx.mustBe("empty or a host name or address other nodes reach this one at")),
    edition: "'oss' | 'enterprise' | 'cloud'",
    log_level: "'debug' | 'info' | 'warn' | 'error'",
    log_format: "'logfmt' | 'json'",
    max_request_body_size: size,
    max_recv_msg_size: positiveSize,
    shutdown_timeout: duration,
    worker_threads: type("'auto' | number.integer >= 0").describe("auto, 0 or a whole number of threads"),
    http_idle_timeout: duration,
    http_read_timeout: duration,
    http_write_timeout: duration,
    http_tls_config: tlsConfig,
    cors_allowed_origins: type("string[]").narrow((list, ctx) =>
      list.every((o) => o === "*" || (normalizeOrigin(o) !== undefined && !/^[a-z]+:\/\/[^/]+\/./i.test(o))) ||
      ctx.mustBe("a list of origins such as https://admin.example.com:8443, or *"),
    ),
    allowed_hosts: type("string[]").narrow((list, ctx) =>
      list.every((h) => h === "*" || /^(\[[0-9a-f:.]+\]|[^\s/:@[\]]+)$/i.test(h)) ||
      ctx.mustBe("a list of host names or addresses such as logs.example.com, 10.0.0.5 or [::1] (no scheme or port), or *"),
    ),
  },
  dashboard: {
    http_port: port,
    stack_id: type("number.integer >= 1").describe("a positive integer"),
    rbac: {
      permission_validation_enabled: "boolean",
    },
    feature_toggles: type("string[]").describe("a list of group/version names"),
    nested_folders: "boolean",
    max_nested_folder_depth: type("1 <= number.integer <= 7").describe("an integer from 1 to 7"),
    http_tls_config: tlsConfig,
    datasource_limit: type("number.integer >= 1").describe("a positive whole number"),
    /** GET /metrics on the dashboard listener (the real product's [metrics] section) */
    metrics: {
      enabled: "boolean",
      basic_auth_username: "string",
      basic_auth_password: "string",
      disable_total_stats: "boolean",
    },
    root_url: type("string").narrow((s, ctx) => s === "" || /^https?:\/\/[^\s/]+/.test(s) || ctx.mustBe("an http(s) URL such as https://outpost.example.com/")),
  },
  logs: {
    enabled: "boolean",
    http_port: port,
    auth_enabled: "boolean",
    multi_tenant_queries_enabled: "boolean",
    limits: {
      ingestion_rate_mb: type("number >= 0").describe("a number of MiB per second"),
      ingestion_burst_size_mb: type("number >= 0").describe("a number of MiB"),
      max_line_size: size,
      max_label_names_per_series: type("number.integer >= 0").describe("a whole number"),
      max_streams_per_user: type("number.integer >= 0").describe("a whole number (0: no limit)"),
      reject_old_samples: "boolean",
      reject_old_samples_max_age: duration,
      max_query_length: duration,
      max_entries_limit_per_query: type("number.integer >= 0").describe("a whole number"),
      query_timeout: duration,
      max_query_series: count,
      max_outstanding_per_tenant: count,
      max_concurrent_tail_requests: count,
      max_structured_metadata_size: size,
      max_structured_metadata_entries_count: count,
      retention_period: duration,
      deletion_mode: type("'disabled' | 'filter-only' | 'filter-and-delete'").describe("disabled, filter-only or filter-and-delete"),
      otlp_config: otlpConfigSchema,
    },
    otlp: {
      default_resource_attributes_as_index_labels: type("string[]").describe("a list of OTLP resource attribute names"),
    },
    querier: {
      max_concurrent: type("number.integer >= 1").describe("a positive whole number"),
      tail_max_duration: duration,
    },
    compactor: {
      compaction_interval: positiveDuration,
      delete_request_cancel_period: duration,
      delete_max_interval: duration,
    },
    runtime_config_file: "string",
    runtime_config_reload_period: duration,
    auth: storeAuth,
    auth_proxy: {
      enabled: "boolean",
      htpasswd_file: "string",
      realm: nonEmpty,
      port: port,
      open_ready: "boolean",
    },
  },
  metrics: {
    enabled: "boolean",
    http_port: port,
    admin_token: "string",
    auth: storeAuth,
    cluster_name: nonEmpty,
    limits: {
      ingestion_rate: count,
      ingestion_burst_size: count,
      ingestion_rate_strategy: "'global' | 'local'",
      max_series_per_query: count,
      max_samples_per_query: count,
      query_timeout: duration,
      max_global_series_per_user: count,
      max_global_series_per_metric: count,
      max_fetched_chunk_bytes_per_query: count,
      max_label_names_per_series: count,
      max_label_name_length: count,
      max_label_value_length: count,
      creation_grace_period: duration,
      ruler_max_rules_per_rule_group: count,
      ruler_max_rule_groups_per_tenant: count,
      compactor_blocks_retention_period: durationOrUnset,
    },
    runtime_config_file: "string",
    runtime_config_reload_period: duration,
    admin_limits_refresh_period: duration,
    ingester: {
      instance_limits: {
        max_inflight_push_requests: count,
      },
    },
    ingester_stream_chunks_when_using_blocks: "boolean",
    querier: {
      max_concurrent: type("number.integer >= 1").describe("a positive whole number"),
    },
    active_series_idle_timeout: duration,
    retention_period: duration,
    compactor: {
      cleanup_interval: positiveDuration,
    },
    ruler_evaluation_interval: duration,
    /** OTLP metric translation (Mimir's -distributor.otel-* settings, global here) */
    otlp: {
      metric_suffixes_enabled: "boolean",
      promote_resource_attributes: "string[]",
      promote_scope_metadata: "boolean",
      keep_identifying_resource_attributes: "boolean",
    },
  },
  security: {
    admin_password: nonEmpty,
    secret_key: "string",
    previous_secret_keys: type("string[]").describe("a list of keys"),
    basic_auth_enabled: "boolean",
    login_max_attempts: type("number.integer >= 0").describe("a whole number (0 turns the lock-out off)"),
    login_lockout_duration: duration,
    session_lifetime: duration,
    cookie_secure: "boolean",
    csrf_trusted_origins: type("string[]").narrow((list, ctx) =>
      list.every((o) => /^[a-z0-9.-]+$/i.test(o) || (normalizeOrigin(o) !== undefined && !/^[a-z]+:\/\/[^/]+\/./i.test(o))) ||
      ctx.mustBe("a list of hostnames (wiki.example.com) or origins (https://wiki.example.com:8443)"),
    ),
    csrf_additional_headers: type("string[]").narrow((list, ctx) =>
      list.every((h) => /^[A-Za-z0-9-]+$/.test(h)) || ctx.mustBe("a list of header names such as X-Forwarded-Host"),
    ),
    licence_public_key_file: "string",
    data_source_proxy_whitelist: type("string[]").describe("a list of host:port, host, IP or CIDR entries"),
    data_source_refuse_link_local: "boolean",
    data_source_refuse_loopback: "boolean",
    totp_enabled: "boolean",
    totp_required_for_admins: "boolean",
  },
  auth: {
    ldap: {
      enabled: "boolean",
      config_file: "string",
      allow_sign_up: "boolean",
      skip_org_role_sync: "boolean",
      active_sync_enabled: "boolean",
      sync_cron: type("string").narrow((s, ctx) => isCronExpression(s) || ctx.mustBe("a cron expression such as \"0 1 * * *\" (5 fields, or 6 with seconds first) or @hourly, @daily")),
      max_concurrent_operations: type("1 <= number.integer <= 1000").describe("a whole number from 1 to 1000"),
      max_queued_operations: count,
    },
    /** the real product's [auth] oauth_allow_insecure_email_lookup */
    oauth_allow_insecure_email_lookup: "boolean",
    /** OpenID Connect / OAuth2 sign-in (the real product's [auth.generic_oauth]) */
    generic_oauth: {
      enabled: "boolean",
      name: nonEmpty,
      client_id: "string",
      client_secret: "string",
      client_secret_file: "string",
      scopes: type("string[]").describe("a list of scopes"),
      issuer: httpUrlOrEmpty,
      auth_url: httpUrlOrEmpty,
      token_url: httpUrlOrEmpty,
      api_url: httpUrlOrEmpty,
      use_pkce: "boolean",
      role_attribute_path: "string",
      role_attribute_strict: "boolean",
      allow_assign_grafana_admin: "boolean",
      skip_org_role_sync: "boolean",
      org_attribute_path: "string",
      org_mapping: type("string[]").describe("a list of <ExternalOrg>:<OrgIdOrName>:<Role> entries"),
      groups_attribute_path: "string",
      login_attribute_path: "string",
      email_attribute_path: "string",
      email_attribute_name: "string",
      name_attribute_path: "string",
      allowed_domains: type("string[]").describe("a list of email domains"),
      allowed_groups: type("string[]").describe("a list of groups"),
      allow_sign_up: "boolean",
      auto_login: "boolean",
      signout_redirect_url: httpUrlOrEmpty,
      tls_skip_verify_insecure: "boolean",
      tls_client_ca: "string",
    },
  },
  storage: {
    data_dir: nonEmpty,
    in_memory: "boolean",
    database_url: type("string").narrow((s, ctx) => s === "" || /^postgres(ql)?:\/\/\S+$/i.test(s) || ctx.mustBe("empty (the embedded database) or a postgres:// URL")),
    database_password_file: "string",
    database_ca_file: "string",
    database_max_connections: type("1 <= number.integer <= 1000").describe("an integer from 1 to 1000"),
    max_disk_usage: diskCap,
    disk_check_interval: positiveDuration,
    min_free_disk_space: size,
  },
  /** backups of the running server (docs/operations.md, "Backup and restore") */
  backups: {
    schedule: type("string").narrow((s, ctx) => s === "" || isCronExpression(s) || ctx.mustBe("empty (no scheduled backups) or a cron expression such as \"0 3 * * *\" (5 fields, or 6 with seconds first) or @daily")),
    keep: count,
    dir: "string",
  },
  datasources: provisionedDataSource.array(),
}).onDeepUndeclaredKey("reject");

/** The validated configuration: sizes in bytes, durations in milliseconds. */
export type Config = typeof configSchema.infer;
