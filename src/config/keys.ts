// One row per configuration key: where it lives in the YAML file, its flag,
// its environment variable, its default and what it means. The CLI options,
// the environment lookup and docs/configuration.md are all generated from
// this table, so the three can never disagree.

import { DEFAULT_INDEX_LABEL_ATTRIBUTES } from "./otlp-logs.ts";

export type ValueKind = "string" | "number" | "boolean" | "size" | "duration" | "list";

export interface ConfigKey {
  /** dotted path in the YAML file, e.g. "dashboard.http_port" */
  path: string;
  /** commander flag spec, e.g. "--http-port <port>", "--no-logs", "--in-memory" */
  flag: string;
  kind: ValueKind;
  default: string | number | boolean | string[];
  description: string;
  /** never echoed in messages or logs */
  secret?: boolean;
}

/** the five keys of an http_tls_config block (dskit's shape), for one listener group */
function tlsKeys(block: string, flagPrefix: string, where: string): ConfigKey[] {
  const key = (name: string, flag: string, description: string): ConfigKey =>
    ({ path: `${block}.http_tls_config.${name}`, flag: `--${flagPrefix}${flag}`, kind: "string", default: "", description });
  return [
    key("cert_file", "http-tls-cert-path <file>", `server certificate (PEM) of ${where}; with key_file it turns HTTPS on`),
    key("key_file", "http-tls-key-path <file>", `private key (PEM) of the server certificate of ${where}`),
    key("client_auth_type", "http-tls-client-auth <type>",
      `client certificates ${where} asks for: NoClientCert, RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven or RequireAndVerifyClientCert (needs server TLS)`),
    key("client_ca_file", "http-tls-ca-path <file>", `CA certificates (PEM) client certificates of ${where} are verified against`),
    key("client_ca", "http-tls-client-ca <pem>", "the same CA certificates inline (PEM text) instead of a file"),
  ];
}

/** the metrics store's global default limits (metrics.limits.*), the spec's minimal defaults */
function metricsLimitKeys(): ConfigKey[] {
  const key = (name: string, kind: ConfigKey["kind"], def: number | string, description: string): ConfigKey =>
    ({ path: `metrics.limits.${name}`, flag: `--metrics-${name.replace(/_/g, "-")} <${kind === "duration" ? "duration" : "n"}>`, kind, default: def, description });
  return [
    key("ingestion_rate", "number", 142857, "samples per second a tenant may push (token bucket rate)"),
    key("ingestion_burst_size", "number", 142857, "samples a tenant may push at once (token bucket size)"),
    { path: "metrics.limits.ingestion_rate_strategy", flag: "--metrics-ingestion-rate-strategy <strategy>", kind: "string", default: "global",
      description: "global or local; one process, so both enforce the full rate" },
    key("max_series_per_query", "number", 0, "series one query may fetch (0: no limit)"),
    key("max_samples_per_query", "number", 20000000,
      "samples and points one query may hold in memory at once: samples loaded, subquery steps, intermediate results (Prometheus's -query.max-samples; 0: no limit); over it 422"),
    key("query_timeout", "duration", "2m", "how long one query (or rule evaluation) may run (Mimir's -querier.timeout; 0: no limit); over it 503 timeout"),
    key("max_global_series_per_user", "number", 1000000, "active series per tenant (0: no limit)"),
    key("max_global_series_per_metric", "number", 30000, "active series per metric name and tenant (0: no limit)"),
    key("max_fetched_chunk_bytes_per_query", "number", 0, "chunk bytes one query may fetch (0: no limit)"),
    key("max_label_names_per_series", "number", 30, "labels a series may have, its name included"),
    key("max_label_name_length", "number", 1024, "longest label name accepted"),
    key("max_label_value_length", "number", 2048, "longest label value accepted"),
    key("creation_grace_period", "duration", "10m", "how far in the future a sample may be"),
    key("ruler_max_rules_per_rule_group", "number", 20, "rules in one rule group (0: no limit)"),
    key("ruler_max_rule_groups_per_tenant", "number", 70, "rule groups of one tenant (0: no limit)"),
  ];
}

/** the access control of one store (issue 22; docs/security.md) */
function storeAuthKeys(store: "logs" | "metrics"): ConfigKey[] {
  return [
    { path: `${store}.auth.type`, flag: `--${store}-auth-type <type>`, kind: "string", default: "header",
      description: `how the ${store === "logs" ? "log" : "metrics"} store knows a request's tenant: header (X-Scope-OrgID, trusted as sent) or tokens (access policy tokens: basic auth tenant:token, or Bearer with X-Scope-OrgID)` },
    { path: `${store}.auth.tenant_from_client_cert`, flag: `--${store}-tenant-from-client-cert <field>`, kind: "string", default: "",
      description: "take the tenant from a verified client certificate: cn, ou, san_dns or san_uri (its last path segment); empty: off (mTLS authenticates only)" },
    { path: `${store}.auth.client_cert_allowed_tenants`, flag: `--${store}-client-cert-allowed-tenants <list>`, kind: "list", default: [],
      description: "tenants a client certificate may name (* for any); required when tenant_from_client_cert is set" },
  ];
}

/** OpenID Connect / OAuth2 sign-in, the real product's [auth.generic_oauth] (docs/authentication.md) */
function genericOAuthKeys(): ConfigKey[] {
  const key = (name: string, flag: string, kind: ConfigKey["kind"], def: ConfigKey["default"], description: string, secret = false): ConfigKey =>
    ({ path: `auth.generic_oauth.${name}`, flag: flag.startsWith("--") ? flag : `--oauth-${flag}`, kind, default: def, description, ...(secret ? { secret } : {}) });
  return [
    key("enabled", "--oauth", "boolean", false, "sign users in on the admin page with an OpenID Connect / OAuth2 provider (authorization code with PKCE)"),
    key("name", "name <text>", "string", "OAuth", "the provider's name on the sign-in button (\"Sign in with <name>\")"),
    key("client_id", "client-id <id>", "string", "", "the client id registered at the provider"),
    key("client_secret", "client-secret <secret>", "string", "", "the client secret (never logged or shown); empty with client_secret_file, or for a public client", true),
    key("client_secret_file", "client-secret-file <file>", "string", "", "a file holding the client secret (trailing white space dropped), instead of client_secret"),
    key("scopes", "scopes <list>", "list", ["openid", "email", "profile"], "scopes asked for, comma- or space-separated"),
    key("issuer", "issuer <url>", "string", "", "the provider's issuer URL: its endpoints are discovered from <issuer>/.well-known/openid-configuration"),
    key("auth_url", "auth-url <url>", "string", "", "the authorization endpoint (overrides discovery; needed without issuer)"),
    key("token_url", "token-url <url>", "string", "", "the token endpoint (overrides discovery; needed without issuer)"),
    key("api_url", "api-url <url>", "string", "", "the userinfo endpoint (overrides discovery); its claims are added to the ID token's"),
    key("use_pkce", "--no-oauth-use-pkce", "boolean", true, "send a PKCE code challenge (S256); --no-oauth-use-pkce for providers that refuse it"),
    key("role_attribute_path", "role-attribute-path <jmespath>", "string", "",
      "JMESPath over the ID token and userinfo claims giving the organization role: Admin, Editor, Viewer, None (or GrafanaAdmin with allow_assign_grafana_admin)"),
    key("role_attribute_strict", "role-attribute-strict", "boolean", false, "refuse the sign-in when role_attribute_path gives no valid role (else: Viewer)"),
    key("allow_assign_grafana_admin", "allow-assign-grafana-admin", "boolean", false, "let role_attribute_path give GrafanaAdmin: server admin and Admin of the main organization"),
    key("skip_org_role_sync", "skip-org-role-sync", "boolean", false,
      "leave a returning user's organizations, roles and server admin flag alone at sign-in (set by hand); a new user still gets them from the claims once (no server admin flag)"),
    key("org_attribute_path", "org-attribute-path <jmespath>", "string", "", "JMESPath over the claims giving the user's external organizations (a list of names or ids), matched by org_mapping"),
    key("org_mapping", "org-mapping <list>", "list", [],
      "mapping entries ExternalOrg:OrgIdOrName:Role, comma- or space-separated (* as ExternalOrg: every user; * as OrgIdOrName: every organization; role optional, Viewer): set, the user's memberships follow it at each sign-in"),
    key("groups_attribute_path", "groups-attribute-path <jmespath>", "string", "", "JMESPath over the claims giving the user's groups (team sync, allowed_groups), e.g. groups; empty: no groups"),
    key("login_attribute_path", "login-attribute-path <jmespath>", "string", "", "JMESPath over the claims giving the login when there is no login claim; else the username claim, else the email"),
    key("email_attribute_path", "email-attribute-path <jmespath>", "string", "", "JMESPath over the claims giving the email when there is no email claim"),
    key("email_attribute_name", "email-attribute-name <name>", "string", "email:primary", "the key of the attributes claim (else a claim of that name) giving the email when neither the email claim nor email_attribute_path does"),
    key("name_attribute_path", "name-attribute-path <jmespath>", "string", "", "JMESPath over the claims giving the display name; else the name claim, display_name, preferred_username, the login"),
    key("allowed_domains", "allowed-domains <list>", "list", [], "email domains allowed to sign in (empty: any)"),
    key("allowed_groups", "allowed-groups <list>", "list", [], "groups of which the user must be in one to sign in (empty: any)"),
    key("allow_sign_up", "--no-oauth-allow-sign-up", "boolean", true, "create a user at the first OAuth sign-in; --no-oauth-allow-sign-up lets only known users in"),
    key("auto_login", "auto-login", "boolean", false, "the sign-in page goes straight to the provider (a ?disableAutoLogin query shows the form)"),
    key("signout_redirect_url", "signout-redirect-url <url>", "string", "", "where GET /logout sends the browser after ending the session (default: the provider's end_session_endpoint, if any)"),
    key("tls_skip_verify_insecure", "tls-skip-verify-insecure", "boolean", false, "do not verify the provider's TLS certificate (testing only)"),
    key("tls_client_ca", "tls-client-ca <file>", "string", "", "CA certificates (PEM file) the provider's certificate is verified against"),
  ];
}

export const configKeys: readonly ConfigKey[] = [
  { path: "server.host", flag: "--host <host>", kind: "string", default: "127.0.0.1",
    description: "address every listener binds to" },
  { path: "server.edition", flag: "--edition <edition>", kind: "string", default: "oss",
    description: "product edition: oss, enterprise or cloud (enterprise-only APIs answer 404 in oss)" },
  { path: "server.log_level", flag: "--log-level <level>", kind: "string", default: "info",
    description: "least severe level logged: debug, info, warn or error" },
  { path: "server.log_format", flag: "--log-format <format>", kind: "string", default: "logfmt",
    description: "log line format: logfmt or json" },
  { path: "server.max_request_body_size", flag: "--max-request-body-size <size>", kind: "size", default: "16MiB",
    description: "largest request body accepted by any listener; larger bodies get 413" },
  { path: "server.max_recv_msg_size", flag: "--max-recv-msg-size <size>", kind: "size", default: "100MiB",
    description: "largest decompressed body (snappy, gzip, deflate) a push to the log or metrics store may decode to; larger ones are refused before or while decoding (the real stores' distributor.max_recv_msg_size)" },
  { path: "server.shutdown_timeout", flag: "--shutdown-timeout <duration>", kind: "duration", default: "10s",
    description: "how long SIGINT/SIGTERM waits for in-flight requests before closing" },
  { path: "server.worker_threads", flag: "--worker-threads <n>", kind: "number", default: "auto",
    description: "worker threads that run queries and chunk encoding off the event loop that serves requests: auto (one per core), a number, or 0 (run them on the main thread); started on the first query; one more worker decodes large log pushes (none when 0)" },
  { path: "server.http_idle_timeout", flag: "--http-idle-timeout <duration>", kind: "duration", default: "2m",
    description: "how long a keep-alive connection may wait for its next request before it is closed (the real stores' http_server_idle_timeout, also -server.http-idle-timeout; 0s: never); on Bun at most 255s" },
  { path: "server.http_read_timeout", flag: "--http-read-timeout <duration>", kind: "duration", default: "30s",
    description: "how long a client may take to send a whole request, headers and body (the real stores' http_server_read_timeout, also -server.http-read-timeout; 0s: no limit)" },
  { path: "server.http_write_timeout", flag: "--http-write-timeout <duration>", kind: "duration", default: "2m",
    description: "how long a request in flight may go without a byte read or written before its connection is dropped (Mimir's http_server_write_timeout, also -server.http-write-timeout; 0s: no limit); keep it above the query timeouts" },
  { path: "server.cors_allowed_origins", flag: "--cors-allowed-origins <list>", kind: "list", default: [],
    description: "origins (scheme://host[:port], comma-separated; * for any) whose browser pages may call the log and metrics stores; the dashboard listener on the hostname a request came in on is always allowed" },
  { path: "server.allowed_hosts", flag: "--allowed-hosts <list>", kind: "list", default: [],
    description: "host names the log and metrics stores answer to besides localhost, 127.0.0.1, ::1, server.host and (when bound to 0.0.0.0 or ::) the machine's host name (comma-separated; * for any); an IP address is always accepted, a request naming another host gets 403 (DNS rebinding protection)" },
  ...tlsKeys("dashboard", "dashboard-", "the dashboard listener"),
  { path: "dashboard.http_port", flag: "--http-port <port>", kind: "number", default: 3000,
    description: "port of the dashboard API and admin page (0 picks a free port)" },
  { path: "dashboard.stack_id", flag: "--stack-id <id>", kind: "number", default: 1,
    description: "stack id of a cloud edition instance; its namespace is stacks-<id>" },
  { path: "dashboard.rbac.permission_validation_enabled", flag: "--no-rbac-permission-validation", kind: "boolean", default: true,
    description: "refuse custom roles whose permissions name unknown actions (the real product's rbac.permission_validation_enabled)" },
  { path: "dashboard.feature_toggles", flag: "--feature-toggles <list>", kind: "list", default: [],
    description: "API versions to serve beyond the defaults, comma-separated group/version (e.g. dashboard.svc.app/v1beta1); a name prefixed with - turns a default-on version off" },
  { path: "dashboard.nested_folders", flag: "--no-nested-folders", kind: "boolean", default: true,
    description: "allow folders inside folders (--no-nested-folders turns it off)" },
  { path: "dashboard.max_nested_folder_depth", flag: "--max-nested-folder-depth <n>", kind: "number", default: 4,
    description: "deepest folder nesting allowed (the real product's default 4, at most 7)" },
  { path: "dashboard.datasource_limit", flag: "--datasource-limit <n>", kind: "number", default: 5000,
    description: "most data sources GET /api/datasources returns (the real product's datasource_limit)" },
  { path: "dashboard.root_url", flag: "--root-url <url>", kind: "string", default: "",
    description: "the URL users reach the dashboard server at; empty means http://localhost:<http_port>/ (a licence removal must name it)" },
  ...tlsKeys("server", "", "the log store and metrics store listeners"),
  { path: "logs.enabled", flag: "--no-logs", kind: "boolean", default: true,
    description: "run the log store (--no-logs disables it)" },
  { path: "logs.http_port", flag: "--logs-port <port>", kind: "number", default: 3100,
    description: "port of the log store (0 picks a free port)" },
  { path: "logs.auth_enabled", flag: "--no-logs-auth", kind: "boolean", default: true,
    description: "require X-Scope-OrgID on every log store request but /ready, /metrics and build info; --no-logs-auth puts everything in the tenant fake" },
  { path: "logs.multi_tenant_queries_enabled", flag: "--logs-multi-tenant-queries", kind: "boolean", default: false,
    description: "let log queries name several tenants joined by | (results carry __tenant_id__)" },
  { path: "logs.limits.ingestion_rate_mb", flag: "--logs-ingestion-rate-mb <n>", kind: "number", default: 4,
    description: "per-tenant ingestion rate, MiB of log lines per second" },
  { path: "logs.limits.ingestion_burst_size_mb", flag: "--logs-ingestion-burst-size-mb <n>", kind: "number", default: 6,
    description: "per-tenant ingestion burst, MiB (a push larger than this is always refused)" },
  { path: "logs.limits.max_line_size", flag: "--logs-max-line-size <size>", kind: "size", default: "256KB",
    description: "longest log line accepted (0: no limit)" },
  { path: "logs.limits.max_label_names_per_series", flag: "--logs-max-label-names-per-series <n>", kind: "number", default: 15,
    description: "most label names a stream may have (service_name not counted)" },
  { path: "logs.limits.max_streams_per_user", flag: "--logs-max-streams-per-user <n>", kind: "number", default: 5000,
    description: "most active streams per tenant (0: no limit)" },
  { path: "logs.limits.reject_old_samples", flag: "--no-logs-reject-old-samples", kind: "boolean", default: true,
    description: "refuse entries older than reject_old_samples_max_age" },
  { path: "logs.limits.reject_old_samples_max_age", flag: "--logs-reject-old-samples-max-age <duration>", kind: "duration", default: "1w",
    description: "oldest entry accepted when reject_old_samples is on" },
  { path: "logs.limits.max_query_length", flag: "--logs-max-query-length <duration>", kind: "duration", default: "30d1h",
    description: "longest time range one query may span" },
  { path: "logs.limits.max_entries_limit_per_query", flag: "--logs-max-entries-limit-per-query <n>", kind: "number", default: 5000,
    description: "largest limit a log query may ask for" },
  { path: "logs.limits.query_timeout", flag: "--logs-query-timeout <duration>", kind: "duration", default: "1m",
    description: "how long one query may run (waiting its turn included); past it the query is stopped and answered 504" },
  { path: "logs.limits.max_query_series", flag: "--logs-max-query-series <n>", kind: "number", default: 500,
    description: "most series a metric query may hold (0: no limit); more is answered 400" },
  { path: "logs.limits.max_outstanding_per_tenant", flag: "--logs-max-outstanding-per-tenant <n>", kind: "number", default: 2048,
    description: "most queries of one tenant running or waiting at once (0: no limit); more are answered 429" },
  { path: "logs.limits.max_structured_metadata_size", flag: "--logs-max-structured-metadata-size <size>", kind: "size", default: "64KiB",
    description: "most bytes of structured metadata (names and values) one entry may carry (0: no limit); an entry with more is refused" },
  { path: "logs.limits.max_structured_metadata_entries_count", flag: "--logs-max-structured-metadata-entries-count <n>", kind: "number", default: 128,
    description: "most structured metadata pairs one entry may carry (0: no limit); an entry with more is refused" },
  { path: "logs.limits.max_concurrent_tail_requests", flag: "--logs-max-concurrent-tail-requests <n>", kind: "number", default: 10,
    description: "most live tails (/svc/api/v1/tail) of one tenant open at once; more are answered 400" },
  { path: "logs.limits.retention_period", flag: "--logs-retention-period <duration>", kind: "duration", default: "0s",
    description: "how long log chunks are kept (0s: forever)" },
  { path: "logs.otlp.default_resource_attributes_as_index_labels", flag: "--logs-otlp-default-resource-attributes-as-index-labels <list>", kind: "list",
    default: [...DEFAULT_INDEX_LABEL_ATTRIBUTES],
    description: "OTLP resource attributes that become stream labels (dots turned into underscores) unless a tenant's otlp_config ignores the defaults; the others become structured metadata" },
  { path: "logs.runtime_config_file", flag: "--logs-runtime-config-file <file>", kind: "string", default: "",
    description: "YAML file with per-tenant limit overrides (overrides: {<tenant>: {<limit>: value}}), re-read while running" },
  { path: "logs.runtime_config_reload_period", flag: "--logs-runtime-config-reload-period <duration>", kind: "duration", default: "10s",
    description: "how often the runtime config file is re-read" },
  { path: "logs.querier.max_concurrent", flag: "--logs-querier-max-concurrent <n>", kind: "number", default: 4,
    description: "queries the log store runs at once; others wait their turn, tenants served in turn" },
  { path: "logs.querier.tail_max_duration", flag: "--logs-tail-max-duration <duration>", kind: "duration", default: "1h",
    description: "how long a live tail stays open; then the server closes it (1011 reached tail max duration limit)" },
  ...storeAuthKeys("logs"),
  { path: "logs.auth_proxy.enabled", flag: "--logs-proxy", kind: "boolean", default: false,
    description: "run the authenticating proxy in front of the log store (basic auth from an htpasswd file; the user name becomes X-Scope-OrgID)" },
  { path: "logs.auth_proxy.htpasswd_file", flag: "--logs-proxy-htpasswd-file <file>", kind: "string", default: "",
    description: "htpasswd file with bcrypt entries (htpasswd -B) of the proxy's users; re-read when it changes" },
  { path: "logs.auth_proxy.realm", flag: "--logs-proxy-realm <realm>", kind: "string", default: "outpost logs",
    description: "realm the proxy names in WWW-Authenticate" },
  { path: "logs.auth_proxy.port", flag: "--logs-proxy-port <port>", kind: "number", default: 3101,
    description: "port of the proxy listener (0 picks a free port)" },
  { path: "logs.auth_proxy.open_ready", flag: "--no-logs-proxy-open-ready", kind: "boolean", default: true,
    description: "let /ready through the proxy without credentials" },
  { path: "metrics.enabled", flag: "--no-metrics", kind: "boolean", default: true,
    description: "run the metrics store (--no-metrics disables it)" },
  { path: "metrics.http_port", flag: "--metrics-port <port>", kind: "number", default: 9009,
    description: "port of the metrics store (0 picks a free port)" },
  { path: "metrics.admin_token", flag: "--metrics-admin-token <token>", kind: "string", default: "",
    description: "token of the metrics store tenant admin API (basic auth, empty user name); empty: one is generated on first boot, printed once and stored hashed",
    secret: true },
  ...storeAuthKeys("metrics"),
  { path: "metrics.cluster_name", flag: "--metrics-cluster-name <name>", kind: "string", default: "outpost",
    description: "name of this metrics cluster; a tenant's cluster must name it" },
  ...metricsLimitKeys(),
  { path: "metrics.runtime_config_file", flag: "--metrics-runtime-config-file <file>", kind: "string", default: "",
    description: "YAML file of per-tenant limit overrides (overrides: {<tenant>: {<limit>: value}}), re-read on a period" },
  { path: "metrics.runtime_config_reload_period", flag: "--metrics-runtime-config-reload-period <duration>", kind: "duration", default: "10s",
    description: "how often the metrics store re-reads its runtime config file" },
  { path: "metrics.admin_limits_refresh_period", flag: "--metrics-admin-limits-refresh-period <duration>", kind: "duration", default: "1m",
    description: "how often limits set through the tenant admin API are re-read; a change takes effect within this period" },
  { path: "metrics.ingester.instance_limits.max_inflight_push_requests", flag: "--max-inflight-push-requests <n>", kind: "number", default: 0,
    description: "pushes handled at once before more get 503 (0: unlimited; also -ingester.instance-limits.max-inflight-push-requests)" },
  { path: "metrics.ingester_stream_chunks_when_using_blocks", flag: "--no-stream-chunks-when-using-blocks", kind: "boolean", default: true,
    description: "stream chunks to queries; the max_fetched_chunk_bytes_per_query limit applies only while on (also -ingester.stream-chunks-when-using-blocks=false)" },
  { path: "metrics.querier.max_concurrent", flag: "--querier-max-concurrent <n>", kind: "number", default: 8,
    description: "queries evaluated at once by the metrics store; more wait (also -querier.max-concurrent)" },
  { path: "metrics.active_series_idle_timeout", flag: "--metrics-active-series-idle-timeout <duration>", kind: "duration", default: "20m",
    description: "a series with no sample for this long is no longer active (nor counted against series limits)" },
  { path: "metrics.retention_period", flag: "--metrics-retention-period <duration>", kind: "duration", default: "0s",
    description: "samples older than this are deleted (0s: kept forever)" },
  { path: "metrics.ruler_evaluation_interval", flag: "--metrics-ruler-evaluation-interval <duration>", kind: "duration", default: "1m",
    description: "evaluation interval of rule groups that name none" },
  { path: "metrics.otlp.metric_suffixes_enabled", flag: "--no-metrics-otlp-metric-suffixes", kind: "boolean", default: true,
    description: "OTLP metric names get unit suffixes, _total for monotonic sums and _ratio for gauges of unit 1 (Prometheus's UnderscoreEscapingWithSuffixes; Mimir's -distributor.otel-metric-suffixes-enabled, off by default there); --no-metrics-otlp-metric-suffixes only escapes the characters" },
  { path: "metrics.otlp.promote_resource_attributes", flag: "--metrics-otlp-promote-resource-attributes <list>", kind: "list", default: [],
    description: "OTLP resource attributes that become labels of every series of their resource (Mimir's -distributor.otel-promote-resource-attributes); the others stay in target_info" },
  { path: "metrics.otlp.promote_scope_metadata", flag: "--metrics-otlp-promote-scope-metadata", kind: "boolean", default: false,
    description: "OTLP instrumentation scopes become otel_scope_name, otel_scope_version, otel_scope_schema_url and otel_scope_<attribute> labels (Mimir's -distributor.otel-promote-scope-metadata, off by default)" },
  { path: "metrics.otlp.keep_identifying_resource_attributes", flag: "--metrics-otlp-keep-identifying-resource-attributes", kind: "boolean", default: false,
    description: "keep service.name, service.namespace and service.instance.id in target_info besides job and instance (Mimir's -distributor.otel-keep-identifying-resource-attributes)" },
  { path: "security.admin_password", flag: "--admin-password <password>", kind: "string", default: "admin",
    description: "initial password of the built-in admin user; a warning is logged while it is the default",
    secret: true },
  { path: "security.secret_key", flag: "--secret-key <key>", kind: "string", default: "",
    description: "key that encrypts secrets at rest (data source secrets, secure values); empty: a random key is generated into <data_dir>/secret.key (mode 0600) on first boot, rotated with outpost secrets rotate",
    secret: true },
  { path: "security.previous_secret_keys", flag: "--previous-secret-keys <keys>", kind: "list", default: [],
    description: "earlier values of security.secret_key, comma-separated: secrets sealed with them still open and are re-wrapped with the current key at startup",
    secret: true },
  { path: "security.basic_auth_enabled", flag: "--no-basic-auth", kind: "boolean", default: true,
    description: "accept HTTP basic authentication for users (never accepted in the cloud edition); --no-basic-auth turns it off" },
  { path: "security.login_max_attempts", flag: "--login-max-attempts <n>", kind: "number", default: 5,
    description: "failed logins for one login name before it is locked for a while (0: never lock)" },
  { path: "security.login_lockout_duration", flag: "--login-lockout-duration <duration>", kind: "duration", default: "5m",
    description: "how long a login name stays locked after too many failed logins" },
  { path: "security.session_lifetime", flag: "--session-lifetime <duration>", kind: "duration", default: "7d",
    description: "how long an admin-page sign-in (session cookie) lasts" },
  { path: "security.cookie_secure", flag: "--cookie-secure", kind: "boolean", default: false,
    description: "mark the session cookie Secure although the dashboard listener serves plain HTTP (behind a TLS proxy); it is Secure anyway with dashboard TLS or an https dashboard.root_url (the real product's cookie_secure)" },
  { path: "security.csrf_trusted_origins", flag: "--csrf-trusted-origins <list>", kind: "list", default: [],
    description: "other origins (scheme://host[:port], or a bare hostname for any port) whose pages may send state-changing requests with the session cookie; the dashboard's own origin always may (the real product's csrf_trusted_origins)" },
  { path: "security.csrf_additional_headers", flag: "--csrf-additional-headers <list>", kind: "list", default: [],
    description: "request headers (X-Forwarded-Host) that name the host a browser used, set by a proxy in front: an Origin matching one is the dashboard's own (the real product's csrf_additional_headers)" },
  { path: "security.licence_public_key_file", flag: "--licence-public-key-file <file>", kind: "string", default: "",
    description: "RSA public key (PEM) that licence tokens must be signed with (enterprise edition; scripts/licence.ts makes one)" },
  { path: "security.data_source_proxy_whitelist", flag: "--data-source-proxy-whitelist <list>", kind: "list", default: [],
    description: "where the dashboard may send requests for data sources (proxy, resources, health checks, queries): host:port, host, IP or CIDR entries, comma-separated; empty: anywhere (the real product's data_source_proxy_whitelist)" },
  { path: "security.data_source_refuse_link_local", flag: "--no-data-source-link-local", kind: "boolean", default: true,
    description: "refuse data source requests to link-local addresses (169.254.0.0/16, fe80::/10: cloud metadata services); --no-data-source-link-local allows them" },
  { path: "security.data_source_refuse_loopback", flag: "--data-source-refuse-loopback", kind: "boolean", default: false,
    description: "refuse data source requests to loopback addresses (127.0.0.0/8, ::1, 0.0.0.0); off by default: the bundled stores listen on loopback" },
  { path: "security.totp_enabled", flag: "--no-totp", kind: "boolean", default: true,
    description: "let local users enrol a second factor (TOTP, an authenticator app's six-digit codes; docs/authentication.md); --no-totp refuses new enrolments, second factors already enabled stay in force" },
  { path: "security.totp_required_for_admins", flag: "--totp-required-for-admins", kind: "boolean", default: false,
    description: "a server admin or organization Admin without a second factor who signs in on the admin page must enrol one before anything else: until then that session's API calls answer 403" },
  { path: "auth.ldap.enabled", flag: "--ldap", kind: "boolean", default: false,
    description: "sign users in against LDAP / Active Directory servers described in auth.ldap.config_file (docs/authentication.md; the real product's [auth.ldap] enabled)" },
  { path: "auth.ldap.config_file", flag: "--ldap-config-file <file>", kind: "string", default: "/etc/outpost/ldap.toml",
    description: "the LDAP servers, attributes and group mappings, in the real product's ldap.toml format; read at start (an invalid file stops it) and by POST /api/admin/ldap/reload" },
  { path: "auth.ldap.allow_sign_up", flag: "--no-ldap-allow-sign-up", kind: "boolean", default: true,
    description: "create a user at the first LDAP sign-in; --no-ldap-allow-sign-up lets only users that exist already sign in with LDAP" },
  { path: "auth.ldap.skip_org_role_sync", flag: "--ldap-skip-org-role-sync", kind: "boolean", default: false,
    description: "leave organization memberships and roles of LDAP users alone at sign-in (set by hand) instead of following the group mappings" },
  { path: "auth.ldap.active_sync_enabled", flag: "--no-ldap-active-sync", kind: "boolean", default: true,
    description: "re-check every LDAP user against the directory in the background at auth.ldap.sync_cron: a user no longer found (or in no mapped group) is disabled and its sessions end, roles and teams follow the groups (the real product's active sync); --no-ldap-active-sync turns it off" },
  { path: "auth.ldap.sync_cron", flag: "--ldap-sync-cron <cron>", kind: "string", default: "0 1 * * *",
    description: "when the active sync runs: a cron expression in the server's time zone (5 fields, or 6 with seconds first, or @hourly, @daily...); default at 1 am every day, as the real product" },
  { path: "auth.ldap.max_concurrent_operations", flag: "--ldap-max-concurrent-operations <n>", kind: "number", default: 8,
    description: "directory conversations (an uncached LDAP sign-in, a lookup, one user of a sync) at once; more wait in a queue" },
  { path: "auth.ldap.max_queued_operations", flag: "--ldap-max-queued-operations <n>", kind: "number", default: 64,
    description: "LDAP sign-ins that may wait for a free directory slot; beyond that a sign-in is answered 503 at once (local users and cached sign-ins are not affected)" },
  { path: "auth.oauth_allow_insecure_email_lookup", flag: "--oauth-allow-insecure-email-lookup", kind: "boolean", default: false,
    description: "let an OAuth sign-in take over an existing user with the same email (the real product's [auth] key); off: a provider's user is linked by its subject only, and an email or login another user holds is refused" },
  ...genericOAuthKeys(),
  { path: "storage.data_dir", flag: "--data-dir <dir>", kind: "string", default: "./outpost-data",
    description: "directory holding the database and lock file (one process per directory)" },
  { path: "storage.in_memory", flag: "--in-memory", kind: "boolean", default: false,
    description: "keep everything in memory and write no files (data is lost on exit)" },
];

/** OUTPOST_<PATH> with dots as underscores: dashboard.http_port -> OUTPOST_DASHBOARD_HTTP_PORT */
export function envNameOf(key: ConfigKey): string {
  return "OUTPOST_" + key.path.replace(/\./g, "_").toUpperCase();
}

/** the long option name without dashes and negation: "--no-logs" -> "logs", "--http-port <p>" -> "httpPort" */
export function optionNameOf(key: ConfigKey): string {
  const long = key.flag.split(/\s+/)[0]!.replace(/^--(no-)?/, "");
  return long.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

export function keyByPath(path: string): ConfigKey | undefined {
  return configKeys.find((k) => k.path === path);
}
