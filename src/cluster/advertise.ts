// The URLs other nodes reach this one's listeners at: the bound port on
// server.advertise_address, else server.host, else (listening on every
// interface) the host name.
import { hostname } from "node:os";
import type { Config } from "../config/schema.ts";

const ANY = new Set(["0.0.0.0", "::", "[::]", ""]);

export function advertised(listeners: ReadonlyArray<readonly [string, { url: string }]>, server: Config["server"]): Record<string, string> {
  const host = server.advertise_address || (ANY.has(server.host) ? hostname() : server.host);
  const out: Record<string, string> = {};
  for (const [name, l] of listeners) {
    const url = new URL(l.url);
    url.hostname = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
    out[name] = url.toString().replace(/\/$/, "");
  }
  return out;
}
