// GET /api/admin/settings: the effective configuration in the real product's
// shape, {section: {key: "value"}} with every value a string. Its sections
// are ini sections; Outpost's are the config file's top-level blocks, with
// deeper blocks as dotted keys ({"logs": {"auth_proxy.enabled": "false"}}).
import { configKeys } from "../../../../config/keys.ts";
import { maskedConfig } from "../../../../config/masked.ts";
import type { Config } from "../../../../config/schema.ts";
import { formatDuration } from "../../../../lib/units.ts";

/** what the real product shows in place of a secret (setting.RedactedPassword) */
export const REDACTED = "*********";

/**
 * Sections left out: the datasources block holds data source secrets in
 * free-form fields that no key table describes.
 */
const OMITTED_SECTIONS = new Set(["datasources"]);

const secretPaths = new Set(configKeys.filter((k) => k.secret).map((k) => k.path));
const durationPaths = new Set(configKeys.filter((k) => k.kind === "duration").map((k) => k.path));

export type SettingsBag = Record<string, Record<string, string>>;

/** where each listener's port is in the settings: a port configured as 0 is shown as the one it was given */
const PORT_KEYS: Array<[listener: string, section: string, key: string]> = [
  ["dashboard", "dashboard", "http_port"], ["logs", "logs", "http_port"], ["metrics", "metrics", "http_port"], ["logs proxy", "logs", "auth_proxy.port"],
];

export function adminSettings(config: Config, bound: Partial<Record<string, number>> = {}): SettingsBag {
  // masked first, so a secret never reaches the flattening even if a rule below were wrong
  const masked = maskedConfig(config);
  const bag: SettingsBag = {};
  for (const [section, block] of Object.entries(masked)) {
    if (OMITTED_SECTIONS.has(section) || block === null || typeof block !== "object" || Array.isArray(block)) continue;
    const keys: Record<string, string> = {};
    flatten(block as Record<string, unknown>, section, "", keys);
    bag[section] = keys;
  }
  for (const [listener, section, key] of PORT_KEYS) {
    const port = bound[listener];
    if (port !== undefined && bag[section]?.[key] === "0") bag[section]![key] = String(port);
  }
  return bag;
}

function flatten(block: Record<string, unknown>, section: string, prefix: string, into: Record<string, string>): void {
  for (const [name, value] of Object.entries(block)) {
    const key = prefix + name;
    const path = `${section}.${key}`;
    if (secretPaths.has(path)) into[key] = REDACTED;
    else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      flatten(value as Record<string, unknown>, section, `${key}.`, into);
    } else into[key] = text(value, durationPaths.has(path));
  }
}

/** as an ini file would hold it: lists comma-separated, durations as written (5m), sizes in bytes */
function text(value: unknown, isDuration: boolean): string {
  if (Array.isArray(value)) return value.map((v) => String(v)).join(",");
  if (isDuration && typeof value === "number") return formatDuration(value);
  return value === undefined || value === null ? "" : String(value);
}
