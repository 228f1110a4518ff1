// The contact point (integration) types of the real product: which settings
// are secure (sealed at rest, "[REDACTED]" when read: its
// channels_config.GetSecretKeysForContactPointType, V1 integrations) and what
// each type needs before it is accepted (the notifiers' own checks, with
// their words). Nothing is delivered: the settings are only kept.
import { isPlainObject } from "../../../../lib/json.ts";

/** secure settings by type; a dotted key is a nested field ("tlsConfig.clientKey") */
const SECURE: Record<string, readonly string[]> = {
  "prometheus-alertmanager": ["basicAuthPassword"],
  dingding: ["url"],
  discord: ["url"],
  email: [],
  googlechat: ["url"],
  jira: ["user", "password", "api_token"],
  kafka: ["password"],
  line: ["token"],
  mqtt: ["password", "tlsConfig.caCertificate", "tlsConfig.clientCertificate", "tlsConfig.clientKey"],
  oncall: ["password", "authorization_credentials"],
  opsgenie: ["apiKey"],
  pagerduty: ["integrationKey"],
  pushover: ["apiToken", "userKey"],
  sensugo: ["apikey"],
  slack: ["token", "url"],
  sns: ["sigv4.access_key", "sigv4.secret_key"],
  teams: [],
  telegram: ["bottoken"],
  threema: ["api_secret"],
  victorops: ["url"],
  webex: ["bot_token"],
  webhook: [
    "password", "authorization_credentials", "tlsConfig.caCertificate", "tlsConfig.clientCertificate", "tlsConfig.clientKey",
    "hmacConfig.secret", "http_config.oauth2.client_secret", "http_config.oauth2.tls_config.caCertificate",
    "http_config.oauth2.tls_config.clientCertificate", "http_config.oauth2.tls_config.clientKey",
  ],
  wecom: ["url", "secret"],
};

/** the type as the notifiers know it (case does not matter; "alertmanager" is the older name) */
const known = (type: string): string | undefined => {
  const t = type.toLowerCase();
  return t === "alertmanager" ? "prometheus-alertmanager" : t in SECURE ? t : undefined;
};

export const isKnownType = (type: string) => known(type) !== undefined;

/** the secure settings of a type (none for an unknown one) */
export const secureKeysOf = (type: string): readonly string[] => SECURE[known(type) ?? ""] ?? [];

/** the key of an object matching a name, the exact one first, then regardless of case (as Go's JSON decoding reads fields) */
function keyOf(obj: Record<string, unknown>, name: string): string | undefined {
  if (name in obj) return name;
  const lower = name.toLowerCase();
  return Object.keys(obj).find((k) => k.toLowerCase() === lower);
}

/** the value at a dotted path of the settings, or undefined */
export function valueAt(settings: Record<string, unknown>, path: string): unknown {
  let at: unknown = settings;
  for (const part of path.split(".")) {
    if (!isPlainObject(at)) return undefined;
    const key = keyOf(at, part);
    if (key === undefined) return undefined;
    at = at[key];
  }
  return at;
}

/** settings with the value at a dotted path set (objects on the way made as needed), or removed when value is undefined */
export function withValueAt(settings: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split(".");
  const key = keyOf(settings, head!) ?? head!;
  const out = { ...settings };
  if (rest.length === 0) {
    if (value === undefined) delete out[key];
    else out[key] = value;
    return out;
  }
  const inner = isPlainObject(out[key]) ? (out[key] as Record<string, unknown>) : undefined;
  if (!inner && value === undefined) return out;
  out[key] = withValueAt(inner ?? {}, rest.join("."), value);
  return out;
}

const text = (settings: Record<string, unknown>, key: string) => {
  const v = valueAt(settings, key);
  return typeof v === "string" ? v.trim() : typeof v === "number" ? String(v) : "";
};

const SLACK_CHAT_API = "https://slack.com/api/chat.postMessage";

/** per type, the first thing its notifier refuses in the settings (secure values included), with the notifier's words */
const CHECKS: Record<string, (s: Record<string, unknown>) => string | undefined> = {
  "prometheus-alertmanager": (s) => (text(s, "url") ? undefined : "could not find url property in settings"),
  dingding: (s) => (text(s, "url") ? undefined : "could not find url property in settings"),
  discord: (s) => (text(s, "url") ? undefined : "could not find webhook url property in settings"),
  email: (s) => (text(s, "addresses") ? undefined : "could not find addresses in settings"),
  googlechat: (s) => (text(s, "url") ? undefined : "could not find url property in settings"),
  kafka: (s) => (!text(s, "kafkaRestProxy") ? "could not find kafka rest proxy endpoint property in settings"
    : !text(s, "kafkaTopic") ? "could not find kafka topic property in settings" : undefined),
  line: (s) => (text(s, "token") ? undefined : "could not find token in settings"),
  mqtt: (s) => (!text(s, "brokerUrl") ? "MQTT broker URL must be specified" : !text(s, "topic") ? "MQTT topic must be specified" : undefined),
  oncall: (s) => (text(s, "url") ? undefined : "required field 'url' is not specified"),
  opsgenie: (s) => (text(s, "apiKey") ? undefined : "could not find api key property in settings"),
  pagerduty: (s) => (text(s, "integrationKey") ? undefined : "could not find integration key property in settings"),
  pushover: (s) => (!text(s, "userKey") ? "user key not found" : !text(s, "apiToken") ? "API token not found" : undefined),
  sensugo: (s) => (!text(s, "url") ? "could not find URL property in settings" : !text(s, "apikey") ? "could not find the API key property in settings" : undefined),
  slack: (s) => {
    const url = text(s, "url") || text(s, "endpointUrl") || SLACK_CHAT_API;
    const mention = text(s, "mentionChannel");
    if (!text(s, "recipient") && url === SLACK_CHAT_API) return "recipient must be specified when using the Slack chat API";
    if (mention && mention !== "here" && mention !== "channel") return `invalid value for mentionChannel: ${JSON.stringify(mention)}`;
    if (!text(s, "token") && url === SLACK_CHAT_API) return "token must be specified when using the Slack chat API";
    return undefined;
  },
  teams: (s) => (text(s, "url") ? undefined : "could not find url property in settings"),
  telegram: (s) => (!text(s, "bottoken") ? "could not find Bot Token in settings" : !text(s, "chatid") ? "could not find Chat Id in settings" : undefined),
  threema: (s) => (!text(s, "gateway_id") ? "could not find Threema Gateway ID in settings"
    : !text(s, "recipient_id") ? "could not find Threema Recipient ID in settings"
      : !text(s, "api_secret") ? "could not find Threema API secret in settings" : undefined),
  victorops: (s) => (text(s, "url") ? undefined : "could not find victorops url property in settings"),
  webhook: (s) => (text(s, "url") ? undefined : "required field 'url' is not specified"),
  wecom: (s) => (text(s, "url") || text(s, "secret") ? undefined : "either url or secret is required"),
};

/** why a contact point of this type would not be accepted, or undefined */
export function settingsProblem(type: string, settings: Record<string, unknown>): string | undefined {
  const t = known(type);
  if (!t) return `notifier ${type.slice(0, 60)} is not supported`;
  return CHECKS[t]?.(settings);
}
