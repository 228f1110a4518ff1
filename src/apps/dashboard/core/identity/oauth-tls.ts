// The HTTP client of the OpenID Connect sign-in when the provider's TLS is
// configured (auth.generic_oauth.tls_client_ca, tls_skip_verify_insecure):
// openid-client's requests (discovery, token, userinfo, JWKS) over node:http(s).
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type * as oidc from "openid-client";

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
      const target = new URL(url);
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
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(", ") : v);
          resolve(new Response(res.statusCode === 204 ? null : Buffer.concat(chunks), { status: res.statusCode ?? 500, headers: h }));
        });
      });
      req.on("error", reject);
      const body = options.body;
      if (body === undefined || body === null) req.end();
      else req.end(typeof body === "string" ? body : body instanceof URLSearchParams ? body.toString() : Buffer.from(body as ArrayBuffer));
    });
}
