// Checks, through a real WebSocket client, that a running server's log store
// serves the live tail (platform/websocket.ts on that runtime or binary): an
// entry pushed after the tail opened arrives on it.
import { expect } from "vitest";
import WebSocket from "ws";

export async function expectTail(urls: Record<string, string>): Promise<void> {
  const tenant = { "X-Scope-OrgID": "e2e-tail" };
  const url = `${urls.logs!.replace(/^http/, "ws")}/loki/api/v1/tail?${new URLSearchParams({ query: '{app="tail-probe"}' })}`;
  const ws = new WebSocket(url, { headers: tenant });
  const lines: string[] = [];
  ws.on("message", (m) => {
    for (const s of (JSON.parse(String(m)) as { streams: Array<{ values: string[][] }> }).streams) for (const v of s.values) lines.push(v[1]!);
  });
  await new Promise((resolve, reject) => {
    ws.on("open", resolve);
    ws.on("error", reject);
  });
  const ts = String(BigInt(Date.now()) * 1_000_000n);
  const pushed = await fetch(`${urls.logs}/loki/api/v1/push`, {
    method: "POST",
    headers: { ...tenant, "Content-Type": "application/json" },
    body: JSON.stringify({ streams: [{ stream: { app: "tail-probe" }, values: [[ts, "tailed"]] }] }),
  });
  expect(pushed.status).toBe(204);
  const until = Date.now() + 20_000;
  while (!lines.length && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
  expect(lines).toEqual(["tailed"]);
  const closed = new Promise<number>((resolve) => ws.on("close", resolve));
  ws.close(1000);
  expect(await closed).toBe(1000);
}
