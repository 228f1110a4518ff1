// Builds malformed requests for one route: its path parameters, query and
// body drawn from values.ts, with or without credentials.
import { gzipSync, deflateSync } from "node:zlib";
import snappy from "snappyjs";
import type { Rng } from "./prng.ts";
import type { FuzzRequest, Service } from "./target.ts";
import { CONTENT_TYPES, deepJson, encodeLoosely, invalidUtf8Json, jsonText, LONG_100K, nastyString, randomBytes, urlPiece } from "./values.ts";

export interface Route {
  service: Service;
  method: string;
  /** with :name or {name} parameters and an optional trailing * */
  path: string;
}

export const QUERY_KEYS: readonly string[] = [
  "query", "start", "end", "time", "since", "step", "interval", "limit", "direction", "match[]", "match", "from", "to", "type",
  "page", "perpage", "perPage", "orgId", "targetOrgId", "resourceVersion", "continue", "labelSelector", "fieldSelector", "tag",
  "tags", "dashboardUID", "panelId", "folderUIDs", "sort", "accesscontrol", "query_exemplars", "metric", "lookback_delta",
  "timeout", "stats", "dedup", "q", "name", "login", "id", "uid", "kind", "searchString", "dryRun", "force", "decrypt",
];

/** a path with its parameters filled in: mostly malformed, sometimes plausible so deeper validation runs */
export function fillPath(rng: Rng, path: string, plausible: Record<string, string[]> = {}): string {
  let out = path.replace(/[:{]([A-Za-z]+)\}?/g, (_m, name: string) => {
    const good = plausible[name];
    if (good && rng.chance(0.4)) return rng.pick(good);
    return urlPiece(rng) || "x";
  });
  if (out.endsWith("*")) {
    const tail = rng.pick(["", "x", "api/v1/query", "svc/api/v1/labels", "%2e%2e/%2e%2e/api/admin/settings", "a/../../b", urlPiece(rng), `${urlPiece(rng)}/${urlPiece(rng)}`]);
    out = out.slice(0, -1) + tail;
  }
  return out;
}

export function query(rng: Rng, keys: readonly string[] = QUERY_KEYS): string {
  const n = rng.int(4);
  if (n === 0) return "";
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const key = rng.chance(0.9) ? rng.pick(keys) : urlPiece(rng);
    parts.push(`${encodeLoosely(key)}=${urlPiece(rng)}`);
  }
  if (rng.chance(0.05)) parts.push("%zz=%", "a=%gg", "&&&", "=");
  return `?${parts.join("&")}`;
}

export type BodyKind = "json" | "deep-ok" | "deep-over" | "utf8" | "garbage" | "long" | "empty" | "bad-json" | "form" | "gzip" | "deflate";

/** a body and its headers; the kind names the input in the failure report */
export function body(rng: Rng): { kind: BodyKind; body: Uint8Array | string; headers: Record<string, string> } {
  const ct = rng.pick(CONTENT_TYPES);
  const headers: Record<string, string> = ct === undefined ? {} : { "Content-Type": ct };
  const r = rng.next();
  if (r < 0.5) return { kind: "json", body: jsonText(rng), headers };
  if (r < 0.55) return { kind: "deep-ok", body: rng.chance(0.5) ? deepJson(95) : `${'{"spec":'.repeat(95)}1${"}".repeat(95)}`, headers };
  if (r < 0.58) return { kind: "deep-over", body: deepJson(101 + rng.int(5000)), headers };
  if (r < 0.65) return { kind: "utf8", body: invalidUtf8Json(rng), headers };
  if (r < 0.72) return { kind: "garbage", body: randomBytes(rng, 1 + rng.int(300)), headers };
  if (r < 0.76) return { kind: "long", body: JSON.stringify({ name: LONG_100K, title: LONG_100K.slice(0, 9000), login: LONG_100K }), headers };
  if (r < 0.8) return { kind: "empty", body: "", headers };
  if (r < 0.88) return { kind: "bad-json", body: rng.pick(["NaN", "{", '{"a":', "[1,]", '{"a":1,}', "'x'", "\u0000", '{"a":"\\ud800"}', '{"a":"\\u00"}', '{"__proto__":{"x":1}}', "1".repeat(400), "-", "[".repeat(50)]), headers };
  if (r < 0.92) return { kind: "form", body: `a=${urlPiece(rng)}&name=%zz&${encodeLoosely(nastyString(rng).slice(0, 100))}=1`, headers };
  const inner = new TextEncoder().encode(jsonText(rng));
  if (r < 0.96) return { kind: "gzip", body: rng.chance(0.5) ? gzipSync(inner) : gzipSync(inner).subarray(0, 12), headers: { ...headers, "Content-Encoding": "gzip" } };
  return { kind: "deflate", body: rng.chance(0.5) ? deflateSync(inner) : randomBytes(rng, 20), headers: { ...headers, "Content-Encoding": rng.pick(["deflate", "br", "zstd", "snappy", "x-unknown", "gzip, gzip"]) } };
}

/** a body with valid snappy framing around garbage, or garbage claiming to be snappy */
export function snappyish(rng: Rng, inner?: Uint8Array): { kind: string; body: Uint8Array } {
  const r = rng.next();
  const payload = inner ?? randomBytes(rng, 1 + rng.int(200));
  if (r < 0.3) return { kind: "snappy(garbage)", body: snappy.compress(payload) as Uint8Array };
  if (r < 0.45) {
    const whole = snappy.compress(payload) as Uint8Array;
    return { kind: "snappy-truncated", body: whole.subarray(0, Math.max(1, whole.length - 1 - rng.int(Math.max(1, whole.length - 1)))) };
  }
  if (r < 0.65) return { kind: "not-snappy", body: randomBytes(rng, 1 + rng.int(64)) };
  // a declared length with little behind it (the issue's bombs have this shape)
  if (r < 0.82) {
    const declared = rng.chance(0.5) ? [0x80 + rng.int(0x7f), 0x80 + rng.int(0x7f), 0x80 + rng.int(0x7f), rng.int(8)] : [0x80 + rng.int(0x7f), 0x80 + rng.int(0x7f), 0x80 + rng.int(0x7f), 0x80 + rng.int(0x7f), rng.int(16)];
    return { kind: "snappy-declared-large", body: new Uint8Array([...declared, ...randomBytes(rng, rng.int(10))]) };
  }
  // a literal whose 4-byte length has the top bit set (the issue's 6-byte hang has this shape)
  return { kind: "snappy-literal-4byte", body: new Uint8Array([1 + rng.int(127), 0xfc, rng.int(256), rng.int(256), rng.int(256), 0x80 + rng.int(128), ...randomBytes(rng, rng.int(4))]) };
}

/** the good credentials, none, or broken ones (never a wrong password for a real login: that would lock it out) */
export function authHeader(rng: Rng, good: string): { kind: string; headers: Record<string, string> } {
  const r = rng.next();
  if (r < 0.45) return { kind: "auth", headers: { Authorization: good } };
  if (r < 0.9) return { kind: "anon", headers: {} };
  return { kind: "bad-auth", headers: { Authorization: rng.pick(["Basic", "Basic %%%", `Basic ${btoa("nocolon")}`, `Bearer ${"x".repeat(5000)}`, "Bearer ", `Basic ${btoa(`nobody:${"a".repeat(10000)}`)}`, "Digest x", `Basic ${btoa("\u00ff:\u00ff")}`]) } };
}

export function request(route: Route, init: Omit<FuzzRequest, "service" | "method" | "route">): FuzzRequest {
  return { service: route.service, method: route.method, route: route.path, ...init };
}
