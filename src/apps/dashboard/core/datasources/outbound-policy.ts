// Where the dashboard may send requests on a data source's behalf (issue 16,
// "Outgoing requests"): every proxy, resource, health and query request goes
// through sendToDataSource, which asks this policy first. The real product's
// security.data_source_proxy_whitelist (host:port entries; Outpost also takes
// a bare host or IP, and CIDR ranges), plus refusals of link-local targets
// (169.254.0.0/16, fe80::/10: cloud metadata services; on by default) and of
// loopback ones (127.0.0.0/8, ::1, and the unspecified 0.0.0.0/:: that reach
// it; off by default: the bundled stores listen there). Names are resolved
// and every address checked; the connection then resolves again, so a name
// that changes its answer in between (DNS rebinding) is not caught: an
// allow-list of IP ranges, or names under the operator's control, closes that.
import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { forbidden } from "../../../../lib/errors.ts";

export interface OutboundPolicyConfig {
  /** host:port, host, IP or CIDR entries; empty: any target */
  allowList: readonly string[];
  refuseLinkLocal: boolean;
  refuseLoopback: boolean;
}

type Addr = ipaddr.IPv4 | ipaddr.IPv6;
type Entry = { kind: "cidr"; range: [Addr, number] } | { kind: "host"; host: string; port: string | undefined };

export interface OutboundPolicy {
  /** throws 403 unless a request may go to this URL */
  check(url: URL): Promise<void>;
}

/** an address as ipaddr reads it, IPv4-mapped IPv6 as IPv4 */
const parse = (text: string): Addr | undefined => (ipaddr.isValid(text) ? ipaddr.process(text) : undefined);

function parseEntry(raw: string): Entry {
  const text = raw.trim();
  if (ipaddr.isValidCIDR(text)) return { kind: "cidr", range: ipaddr.parseCIDR(text) };
  const ip = parse(text.replace(/^\[|\]$/g, ""));
  if (ip) return { kind: "cidr", range: [ip, ip.kind() === "ipv4" ? 32 : 128] };
  const m = /^(\[[^\]]+\]|[^:\s/]+)(?::(\d{1,5}))?$/.exec(text);
  if (!m) throw new Error(`security.data_source_proxy_whitelist: "${raw}" is not a host, host:port, IP address or CIDR range`);
  const host = m[1]!.replace(/^\[|\]$/g, "");
  const hostIp = parse(host);
  if (hostIp && m[2] === undefined) return { kind: "cidr", range: [hostIp, hostIp.kind() === "ipv4" ? 32 : 128] };
  return { kind: "host", host: hostIp ? hostIp.toString() : host.toLowerCase(), port: m[2] };
}

const inRange = (addr: Addr, range: [Addr, number]) => addr.kind() === range[0].kind() && addr.match(range);

/** why an address is refused, or undefined */
function refusal(addr: Addr, config: OutboundPolicyConfig): string | undefined {
  const range = addr.range();
  if (config.refuseLinkLocal && range === "linkLocal") {
    return `${addr.toString()} is a link-local address (security.data_source_refuse_link_local)`;
  }
  if (config.refuseLoopback && (range === "loopback" || range === "unspecified")) {
    return `${addr.toString()} is a loopback address (security.data_source_refuse_loopback)`;
  }
  return undefined;
}

const CACHE_MS = 5_000;

/** a bad allow-list entry throws here, so a typo stops startup rather than every request */
export function createOutboundPolicy(config: OutboundPolicyConfig): OutboundPolicy {
  const entries = config.allowList.map(parseEntry);
  const active = entries.length > 0 || config.refuseLinkLocal || config.refuseLoopback;
  // resolved names, briefly: the proxy must not wait for a lookup on every request
  const resolved = new Map<string, { until: number; addrs: Promise<Addr[]> }>();

  const addressesOf = (host: string): Promise<Addr[]> => {
    const literal = parse(host);
    if (literal) return Promise.resolve([literal]);
    const now = Date.now();
    const hit = resolved.get(host);
    if (hit && hit.until > now) return hit.addrs;
    if (resolved.size > 1000) resolved.clear();
    const addrs = lookup(host, { all: true, verbatim: true }).then((list) => list.map((a) => ipaddr.process(a.address)));
    resolved.set(host, { until: now + CACHE_MS, addrs });
    addrs.catch(() => resolved.delete(host));
    return addrs;
  };

  return {
    async check(url) {
      if (!active) return;
      const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
      const port = url.port || (url.protocol === "https:" ? "443" : "80");
      // a name that does not resolve is left to the request, which answers 502 for it
      const addrs = await addressesOf(host).catch(() => [] as Addr[]);
      for (const addr of addrs) {
        const why = refusal(addr, config);
        if (why) throw forbidden(`data source URL not allowed: ${why}`);
      }
      if (!entries.length) return;
      const byName = entries.some((e) => e.kind === "host" && (e.host === host || e.host === parse(host)?.toString()) && (e.port === undefined || e.port === port));
      const byAddress = addrs.length > 0 && addrs.every((a) => entries.some((e) => e.kind === "cidr" && inRange(a, e.range)));
      // the real product's message
      if (!byName && !byAddress) throw forbidden("Data proxy hostname and ip are not included in whitelist");
    },
  };
}
