// The bundled admin page: files embedded in the binary (or read from
// web-admin/dist in development), served at "/". Hashed assets are cached for
// a year; index.html is revalidated on every load and answers the page's own
// client routes (/users, /metrics-tenants, ...) so a reload or a bookmark works.
// Registered last: every API route wins over the fallback.
import { gzipSync } from "node:zlib";
import type { Context } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { tlsEnabled } from "../../../platform/tls.ts";
import type { Router } from "../access/guard.ts";
import type { DashboardDeps } from "../deps.ts";

const contentTypes: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json",
  map: "application/json",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  woff2: "font/woff2",
  txt: "text/plain; charset=utf-8",
};

export function contentTypeOf(path: string): string {
  const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
  return contentTypes[ext] ?? "application/octet-stream";
}

/** names like app-3f9a1c2b.js carry their content hash and never change */
const hashed = /[-.][0-9a-zA-Z_]{8,}\.[a-z0-9]+$/;

export function registerAdminPage(r: Router, deps: DashboardDeps): void {
  // own copies with plain ArrayBuffers, made once, sent as they are
  const files = new Map([...deps.adminFiles].map(([path, bytes]) => [path, new Uint8Array(bytes)]));
  // text files compressed once at startup (the script shrinks from ~85 to ~28 kB)
  const gzipped = new Map<string, Uint8Array<ArrayBuffer>>();
  for (const [path, bytes] of files) {
    if (bytes.length >= 1024 && /^(text\/|application\/json|image\/svg)/.test(contentTypeOf(path))) gzipped.set(path, new Uint8Array(gzipSync(bytes)));
  }
  const policy = adminPagePolicy(deps.config);
  const send = (c: Context, path: string) => {
    const plain = files.get(path);
    if (!plain) throw new ApiError(404, "Not found");
    const packed = gzipped.get(path);
    const body = packed && /\bgzip\b/.test(c.req.header("Accept-Encoding") ?? "") ? packed : plain;
    if (packed) c.header("Vary", "Accept-Encoding");
    if (body === packed) c.header("Content-Encoding", "gzip");
    c.header("Content-Type", contentTypeOf(path));
    c.header("Cache-Control", path !== "/index.html" && hashed.test(path) ? "public, max-age=31536000, immutable" : "no-cache");
    c.header("X-Content-Type-Options", "nosniff");
    if (path === "/index.html") c.header("Content-Security-Policy", policy(c.req.header("Host")));
    return c.body(body);
  };
  r.get("/", { public: true }, (c) => {
    if (!files.has("/index.html")) {
      throw new ApiError(503, "the admin page is not built: run `npm run build` (or `bun scripts/prepare.ts`)");
    }
    return send(c, "/index.html");
  });
  r.get("/*", { public: true }, async (c, next) => {
    const path = c.req.path;
    if (path.startsWith("/api/") || path.startsWith("/apis")) return next();
    if (files.has(path)) return send(c, path);
    if (isClientRoute(path, c.req.header("Accept")) && files.has("/index.html")) return send(c, "/index.html");
    return next();
  });
}

/**
 * The admin page's Content-Security-Policy (issue 16 #11): its own bundled
 * script and stylesheet only (no inline script or style, no eval), requests to
 * the dashboard and to the two stores, which the page reaches on the host name
 * it was loaded from with each store's port and scheme (web-admin/src/lib/stores.ts),
 * and never framed. A Host that is not a plain name or address adds no store.
 */
export function adminPagePolicy(config: DashboardDeps["config"]): (host: string | undefined) => string {
  const scheme = tlsEnabled(config.server.http_tls_config) ? "https" : "http";
  const stores = [
    config.logs.enabled ? config.logs.http_port : 0,
    config.metrics.enabled ? config.metrics.http_port : 0,
  ].filter((p) => p > 0).map((p) => `${scheme}://%h:${p}`);
  // a user who may not read the settings gets a page that assumes the default ports over HTTP
  for (const p of PAGE_ASSUMED_PORTS) if (!stores.includes(`${scheme}://%h:${p}`)) stores.push(`http://%h:${p}`);
  const fixed = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";
  return (host) => {
    const name = hostnameOf(host);
    return `${fixed}; connect-src 'self'${name ? stores.map((s) => ` ${s.replace("%h", name)}`).join("") : ""}`;
  };
}

/** the stores' default ports, which web-admin/src/lib/stores.ts assumes without GET /api/admin/settings */
const PAGE_ASSUMED_PORTS = [3100, 9009];

function hostnameOf(host: string | undefined): string | undefined {
  const m = host === undefined ? null : /^([a-z0-9.-]+|\[[0-9a-f:.]+\])(:\d+)?$/i.exec(host);
  return m?.[1];
}

/** a page address typed or reloaded in a browser: no file extension, HTML accepted */
export function isClientRoute(path: string, accept: string | undefined): boolean {
  const last = path.slice(path.lastIndexOf("/") + 1);
  return !last.includes(".") && (accept ?? "").includes("text/html");
}
