// Which JavaScript runtime is executing: the only place that looks.
export type RuntimeName = "bun" | "deno" | "node";

const g = globalThis as { Bun?: unknown; Deno?: unknown };

export const runtime: RuntimeName = g.Bun !== undefined ? "bun" : g.Deno !== undefined ? "deno" : "node";

export function runtimeVersion(): string {
  if (runtime === "bun") return `bun ${Bun.version}`;
  if (runtime === "deno") return `deno ${(g.Deno as { version: { deno: string } }).version.deno}`;
  return `node ${process.versions.node}`;
}
