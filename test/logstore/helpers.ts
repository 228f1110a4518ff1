// A client for the log store as shippers and Grafana use it.
import { gzipSync } from "node:zlib";
import snappy from "snappyjs";
import { PushRequestType } from "../../src/apps/logstore/core/push-decode.ts";

export type Values = Array<[string, string] | [string, string, Record<string, string>]>;
export interface StreamIn {
  stream: Record<string, string>;
  values: Values;
}

/** nanoseconds, as a string, `secondsAgo` before `nowMs` */
export const nsAgo = (secondsAgo: number, nowMs = Date.now()) => String(BigInt(nowMs - Math.round(secondsAgo * 1000)) * 1_000_000n);

export function protobufBody(streams: StreamIn[]): Uint8Array {
  const message = PushRequestType.fromObject({
    streams: streams.map((s) => ({
      labels: `{${Object.entries(s.stream).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ")}}`,
      entries: s.values.map(([ts, line, metadata]) => ({
        timestamp: { seconds: String(BigInt(ts) / 1_000_000_000n), nanos: Number(BigInt(ts) % 1_000_000_000n) },
        line,
        structuredMetadata: Object.entries(metadata ?? {}).map(([name, value]) => ({ name, value })),
      })),
    })),
  });
  return snappy.compress(PushRequestType.encode(message).finish());
}

export function logClient(base: string) {
  const headersFor = (tenant: string | undefined, extra: Record<string, string> = {}) => ({ ...(tenant === undefined ? {} : { "X-Scope-OrgID": tenant }), ...extra });
  return {
    async push(tenant: string | undefined, streams: StreamIn[], format: "json" | "gzip" | "protobuf" = "json") {
      let body: Uint8Array | string = JSON.stringify({ streams });
      const headers: Record<string, string> = { "Content-Type": "application/json" };
      if (format === "gzip") {
        body = gzipSync(body);
        headers["Content-Encoding"] = "gzip";
      } else if (format === "protobuf") {
        body = protobufBody(streams);
        headers["Content-Type"] = "application/x-protobuf";
      }
      const res = await fetch(`${base}/svc/api/v1/push`, { method: "POST", headers: headersFor(tenant, headers), body: body as BodyInit });
      return { status: res.status, text: await res.text(), headers: res.headers };
    },
    async get(path: string, tenant: string | undefined, params: Record<string, string> = {}, headers: Record<string, string> = {}) {
      const qs = new URLSearchParams(params).toString();
      const res = await fetch(`${base}${path}${qs ? `?${qs}` : ""}`, { headers: headersFor(tenant, headers) });
      const text = await res.text();
      let body: any = text; // eslint-disable-line @typescript-eslint/no-explicit-any
      try { body = JSON.parse(text); } catch { /* plain text */ }
      return { status: res.status, body, text, headers: res.headers };
    },
  };
}
