// What the alerting provisioning objects share: provenance and its rules,
// the real product's structured errors (errutil: message, messageId,
// statusCode), versions (fingerprints of content) and durations.
import { ApiError } from "../../../../lib/errors.ts";
import { canonicalJson } from "../../../../lib/json.ts";

/** "api" for objects written through the provisioning API, "" (none) for those left editable in the UI */
export type Provenance = "" | "api";

/**
 * The longest name of a mute timing or template: the real product keeps them
 * in one configuration document, without a column; here the name is a key.
 */
export const ALERTING_NAME_MAX = 190;

/** the real product's status words: the public message of an errutil error that has none of its own */
const STATUS_WORDS: Record<number, string> = { 400: "Bad request", 403: "Forbidden", 404: "Not found", 409: "Conflict" };

/** an errutil error as the real product renders it: {message, messageId, statusCode} */
export function alertingError(status: number, messageId: string, message?: string, extra?: Record<string, unknown>): ApiError {
  return new ApiError(status, message ?? STATUS_WORDS[status] ?? "Internal server error", { messageId, ...(extra ? { extra } : {}) });
}

/** 400 "invalid object specification: …" (contact points, policies) */
export const invalidSpec = (detail: string) => new ApiError(400, `invalid object specification: ${detail}`);

/** 400 "invalid alert rule: …" */
export const invalidRule = (detail: string) => new ApiError(400, `invalid alert rule: ${detail}`);

const shown = (p: Provenance) => p || "none";

/**
 * The relaxed provenance rule of mute timings, templates and the policy tree:
 * anything may move from none, nothing provisioned may move back to none (the
 * real product's ValidateProvenanceRelaxed; 403 alerting.notifications.invalidProvenance).
 */
export function requireRelaxedProvenance(from: Provenance, to: Provenance): void {
  if (from === "" || to !== "") return;
  throw alertingError(
    403,
    "alerting.notifications.invalidProvenance",
    `Resource with provenance status '${shown(from)}' cannot be managed via API that handles resources with provenance status '${shown(to)}'. You must use appropriate API to manage this resource`,
  );
}

/**
 * The strict rule of alert rules and contact points: a provisioned object is
 * changed only with the provenance it has (the real product answers this
 * with a plain error; here it is a 403 with the same words).
 */
export function requireSameProvenance(stored: Provenance, wanted: Provenance, message: string): void {
  if (stored === "" || stored === wanted) return;
  throw new ApiError(403, message);
}

/** an opaque version of an object's content: equal content, equal version */
export async function fingerprint(value: unknown): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonicalJson(value)));
  return Array.from(new Uint8Array(digest).slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** 409 alerting.notifications.conflict when a given version is not the current one */
export function requireVersion(given: string | undefined, current: string): void {
  if (given && given !== current) throw alertingError(409, "alerting.notifications.conflict");
}

const UNITS: Array<[string, number]> = [["y", 31_536_000_000], ["w", 604_800_000], ["d", 86_400_000], ["h", 3_600_000], ["m", 60_000], ["s", 1000], ["ms", 1]];
const DURATION = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;

/** a Prometheus duration ("5m", "1h30m", "0") in milliseconds; undefined when it is not one */
export function parsePromDuration(text: string): number | undefined {
  if (text === "0") return 0;
  const m = DURATION.exec(text);
  if (!text || !m) return undefined;
  const ms = UNITS.reduce((sum, [, size], i) => sum + Number(m[i + 1] ?? 0) * size, 0);
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** milliseconds as Prometheus prints a duration: "0s", "5m", "1h30m", "2w" (years and weeks only when exact) */
export function formatPromDuration(ms: number): string {
  if (ms === 0) return "0s";
  let rest = ms;
  let out = "";
  for (const [unit, size] of UNITS) {
    if ((unit === "y" || unit === "w") && rest % size !== 0) continue;
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return out;
}

/** whole seconds as Go prints a time.Duration: "0s", "45s", "1m30s", "1h0m0s" */
export function formatGoSeconds(seconds: number): string {
  if (seconds === 0) return "0s";
  const sign = seconds < 0 ? "-" : "";
  const s = Math.abs(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h) return `${sign}${h}h${m}m${rest}s`;
  if (m) return `${sign}${m}m${rest}s`;
  return `${sign}${rest}s`;
}
