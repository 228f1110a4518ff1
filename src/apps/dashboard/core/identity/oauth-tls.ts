// The HTTP client of the OpenID Connect sign-in when the provider's TLS is
// configured (auth.generic_oauth.tls_client_ca, tls_skip_verify_insecure):
// openid-client's requests (discovery, token, userinfo, JWKS) over node:http(s).
// An answer is read up to 1 MiB (beyond: refused), and one the platform's
// Response cannot hold (a status outside 200-599, a body on 204) is refused:
// every failure rejects the request, none escapes from an event handler.
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type * as oidc from "openid-client";

/** the largest answer read from the provider (discovery, token, userinfo, JWKS are a few kB) */
export const MAX_RESPONSE_BYTES = 1024 * 1024;
/** statuses whose Response may have no body (the platforms' Response refuses one) */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * fetch over node:https with the provider's CA (tls_client_ca) or without verification
 * (tls_skip_verify_insecure); undefined: the platform's fetch. Used for discovery, the token,
 * userinfo and JWKS requests.
 */
export function tlsFetch(s: { tls_client_ca: string; tls_skip_verify_insecure: boolean }): oidc.CustomFetch | undefined {
  if (!s.tls_client_ca && !s.tls_skip_verify_insecure) return undefined;
  let ca: string | undefined;
  if (s.tls_client_ca) {
    try {
      ca = readFileSync(s.tls_client_ca, "utf8");
    } catch (err) {
      throw new Error(`auth.generic_oauth.tls_client_ca: cannot read ${s.tls_client_ca}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  return (url, options) =>
    new Promise<Response>((resolve, reject) => {
      let settled = false;
      const settle = (f: () => void) => {
        if (settled) return;
        settled = true;
        f();
      };
      const fail = (err: Error) => settle(() => reject(err));
      const target = new URL(url);
      const tooLarge = () => new Error(`the provider's answer from ${target.origin}${target.pathname} is larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB: refused`);
      const headers: Record<string, string> = {};
      new Headers(options.headers as HeadersInit).forEach((v, k) => (headers[k] = v));
      const send = target.protocol === "https:" ? httpsRequest : httpRequest;
      const req = send(target, {
        method: options.method,
        headers,
        ...(target.protocol === "https:" ? { rejectUnauthorized: !s.tls_skip_verify_insecure, ...(ca ? { ca } : {}) } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        // bounded: a provider (or what answers in its place) cannot make the server hold an endless body
        const refuse = () => {
          fail(tooLarge());
          res.destroy();
          req.destroy();
        };
        res.on("error", fail);
        res.on("aborted", () => fail(new Error(`the provider's answer from ${target.origin}${target.pathname} was cut off`)));
        if (Number(res.headers["content-length"] ?? 0) > MAX_RESPONSE_BYTES) return refuse();
        res.on("data", (c: Buffer) => {
          if (settled) return;
          size += c.length;
          if (size > MAX_RESPONSE_BYTES) return refuse();
          chunks.push(c);
        });
        res.on("end", () => {
          // built inside the event handler: whatever throws here (a status the platform's Response
          // refuses, such as 999, or 204 with a body) must reject, never escape as an uncaught exception
          try {
            const status = res.statusCode ?? 0;
            if (status < 200 || status > 599) throw new Error(`the provider answered ${target.origin}${target.pathname} with HTTP status ${status}, which is not a valid answer`);
            const h = new Headers();
            for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(", ") : v);
            const response = new Response(NULL_BODY_STATUSES.has(status) ? null : Buffer.concat(chunks), { status, headers: h });
            settle(() => resolve(response));
          } catch (err) {
            fail(err instanceof Error ? err : new Error(String(err)));
          }
        });
      });
      req.on("error", fail);
      const body = options.body;
      if (body === undefined || body === null) req.end();
      else req.end(typeof body === "string" ? body : body instanceof URLSearchParams ? body.toString() : Buffer.from(body as ArrayBuffer));
    });
}
