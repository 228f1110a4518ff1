// Query parameters of /apis reads, checked before anything reaches the
// store: a resourceVersion is an unsigned 64-bit number (the API server
// parses it with strconv.ParseUint and names the field in its message), and
// limit/timeoutSeconds are 64-bit integers. Garbage is a 400 Status, never a
// database error. Kubernetes itself answers some of these with 500 (an open
// bug, kubernetes#139485, whose fix makes them 400 BadRequest); we answer as
// the fixed server does, with the same messages.
import { ApiError } from "../../../lib/errors.ts";

const UINT64_MAX = 18446744073709551615n;
/** the store's resource_version column is a signed bigint */
const STORE_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

const badRequest = (message: string) => new ApiError(400, message, { reason: "BadRequest" });

/** Go's strconv error text, as the API server shows it */
const syntax = (fn: string, raw: string) => `strconv.${fn}: parsing ${JSON.stringify(raw)}: invalid syntax`;
const range = (fn: string, raw: string) => `strconv.${fn}: parsing ${JSON.stringify(raw)}: value out of range`;

export interface ResourceVersion {
  /** canonical decimal text ("007" -> "7"); undefined for "" and "0" (any version: the latest) */
  value: string | undefined;
  /** a valid number no object can have (past the store's bigint column) */
  beyondStore: boolean;
}

/** `resourceVersion` of a list, watch or single GET; "" and "0" ask for the latest */
export function parseResourceVersion(raw: string | null | undefined): ResourceVersion {
  if (raw === null || raw === undefined || raw === "" || raw === "0") return { value: undefined, beyondStore: false };
  const invalid = (detail: string) => badRequest(`resourceVersion: Invalid value: ${JSON.stringify(raw)}: ${detail}`);
  if (!/^[0-9]+$/.test(raw)) throw invalid(syntax("ParseUint", raw));
  const n = BigInt(raw);
  if (n > UINT64_MAX) throw invalid(range("ParseUint", raw));
  return { value: n.toString(), beyondStore: n > STORE_MAX };
}

/** an int64 query parameter (limit, timeoutSeconds); undefined when absent */
function int64Param(query: URLSearchParams, name: string): bigint | undefined {
  const raw = query.get(name);
  if (raw === null || raw === "") return undefined;
  if (!/^[+-]?[0-9]+$/.test(raw)) throw badRequest(`${name}: ${syntax("ParseInt", raw)}`);
  const n = BigInt(raw);
  if (n > STORE_MAX || n < INT64_MIN) throw badRequest(`${name}: ${range("ParseInt", raw)}`);
  return n;
}

const MATCHES = ["Exact", "NotOlderThan"];

/**
 * The list options of a list or watch request, refused as the API server
 * refuses them (ValidateListOptions). Returns the page size asked for, if any.
 */
export function checkListOptions(query: URLSearchParams): { limit: number | undefined } {
  const rv = query.get("resourceVersion");
  parseResourceVersion(rv);
  const limit = int64Param(query, "limit");
  int64Param(query, "timeoutSeconds");
  const match = query.get("resourceVersionMatch");
  if (match) {
    const listOptions = (detail: string) => badRequest(`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: ${detail}`);
    if (!MATCHES.includes(match)) {
      throw listOptions(`Unsupported value: ${JSON.stringify(match)}: supported values: ${[...MATCHES, ""].map((m) => JSON.stringify(m)).join(", ")}`);
    }
    if (!rv) throw listOptions("Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided");
    if (query.get("continue")) throw listOptions("Forbidden: resourceVersionMatch is forbidden when continue is provided");
  }
  return { limit: limit === undefined ? undefined : Number(limit > 100000n ? 100000n : limit) };
}
