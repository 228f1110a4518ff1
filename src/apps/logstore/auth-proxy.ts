// The authenticating proxy the spec puts in front of the log store (spec
// "Log store" 1-4), in the same process: HTTP basic auth against an htpasswd
// file of bcrypt entries; a user's name becomes X-Scope-OrgID, overwriting
// whatever the client sent. /ready may stay open. The nginx equivalent is in
// docs/log-store.md. Cross-tenant endpoints (/distributor/..., such as
// all_user_stats, and /metrics, whose series carry every tenant's name and
// volume) are refused: a proxy user is one tenant. CORS is the
// store's, answered here too so preflights need no credentials.
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import bcrypt from "bcryptjs";
import { Hono, type MiddlewareHandler } from "hono";
import { basicCredentials } from "../../lib/http/basic-auth.ts";
import type { Logger } from "../../lib/logger.ts";
import { carryUpgrade } from "../../platform/websocket.ts";
import { tenantIdProblem } from "../../lib/tenant.ts";

export interface AuthProxyOptions {
  htpasswdFile: string;
  realm: string;
  openReady: boolean;
  /** the log store, called in-process */
  forward: (request: Request) => Response | Promise<Response>;
  logger: Logger;
  now?: () => number;
  /** the log store's CORS middleware (preflights are answered before any credential check) */
  cors?: MiddlewareHandler;
}

/** Loki's /distributor/* pages, Outpost's all_user_stats and /metrics see every tenant (any case, extra slashes) */
const CROSS_TENANT = /^\/+(distributor(\/|$)|metrics\/*$)/i;

/** user -> bcrypt hash; anything but bcrypt entries is refused with the line that holds it */
export function parseHtpasswd(text: string, file: string): Map<string, string> {
  const users = new Map<string, string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith("#")) return;
    const at = line.indexOf(":");
    const user = line.slice(0, at);
    const hash = line.slice(at + 1);
    if (at <= 0 || !/^\$2[aby]\$\d\d\$.{53}$/.test(hash)) {
      throw new Error(`${file} line ${i + 1}: only bcrypt entries (htpasswd -B) are supported`);
    }
    const problem = tenantIdProblem(user);
    if (problem) throw new Error(`${file} line ${i + 1}: the user name becomes the tenant id, and ${problem}`);
    // bcryptjs reads $2b$; $2y$ (Apache's) is the same algorithm
    users.set(user, hash.replace(/^\$2y\$/, "$2b$"));
  });
  return users;
}

const CACHE_MS = 5 * 60_000;

export function createAuthProxy(o: AuthProxyOptions): Hono {
  const now = o.now ?? (() => Date.now());
  let users = new Map<string, string>();
  let loadedMtime = -1;
  let checkedAt = 0;
  /** re-reads the file when it changed (checked at most every few seconds) */
  const current = () => {
    if (now() - checkedAt < 5_000 && loadedMtime >= 0) return users;
    checkedAt = now();
    try {
      const mtime = statSync(o.htpasswdFile).mtimeMs;
      if (mtime !== loadedMtime) {
        users = parseHtpasswd(readFileSync(o.htpasswdFile, "utf8"), o.htpasswdFile);
        loadedMtime = mtime;
        verified.clear();
      }
    } catch (err) {
      o.logger.warn("log store proxy: htpasswd file not (re)loaded; keeping the last good one", { err: (err as Error).message });
    }
    return users;
  };
  current();
  if (loadedMtime < 0) throw new Error(`logs.auth_proxy.htpasswd_file: cannot load ${o.htpasswdFile}`);
  // a bcrypt check costs tens of milliseconds: a verified pair is remembered for a while (by digest, never in clear)
  const verified = new Map<string, number>();
  const check = async (user: string, password: string) => {
    const hash = current().get(user);
    if (!hash) return false;
    const key = createHash("sha256").update(`${user}\0${password}\0${hash}`).digest("hex");
    if ((verified.get(key) ?? 0) > now()) return true;
    if (!(await bcrypt.compare(password, hash))) return false;
    if (verified.size > 10_000) verified.clear();
    verified.set(key, now() + CACHE_MS);
    return true;
  };

  const app = new Hono();
  if (o.cors) app.use(o.cors);
  app.all("*", async (c) => {
    const forward = (headers: Headers) => {
      const request = new Request(c.req.url, { method: c.req.method, headers, body: c.req.raw.body, duplex: "half" } as RequestInit);
      // a tail's WebSocket is upgraded on this listener's connection
      carryUpgrade(c.req.raw, request);
      return o.forward(request);
    };
    if (o.openReady && c.req.path === "/ready") return forward(new Headers(c.req.raw.headers));
    if (CROSS_TENANT.test(c.req.path)) return c.text("cross-tenant endpoint\n", 403, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" });
    const credentials = basicCredentials(c.req.header("Authorization"));
    if (!credentials || !(await check(credentials.user, credentials.password))) {
      return c.text("401 Unauthorized\n", 401, { "WWW-Authenticate": `Basic realm="${o.realm.replace(/"/g, "")}"` });
    }
    const headers = new Headers(c.req.raw.headers);
    headers.delete("Authorization");
    headers.set("X-Scope-OrgID", credentials.user);
    return forward(headers);
  });
  return app;
}
