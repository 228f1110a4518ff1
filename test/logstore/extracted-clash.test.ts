// Issue 21: a label a parser extracts (| json, | logfmt, | regexp) whose name
// the stream already has is kept as <name>_extracted, as Loki keeps it; it
// was dropped. The stream's own label is unchanged, and the renamed one can
// be filtered on.
import { describe, expect, it } from "vitest";
import { useServer } from "../helpers/server.ts";

const ns = (ms: number) => `${BigInt(ms) * 1_000_000n}`;

describe("extracted labels that clash with stream labels", () => {
  const t = useServer({});
  const query = async (q: string) => {
    const now = Date.now();
    const params = new URLSearchParams({ query: q, start: ns(now - 60_000), end: ns(now + 1000) });
    const r = await fetch(`${t.server.urls.logs}/svc/api/v1/query_range?${params}`, { headers: { "X-Scope-OrgID": "clash" } });
    expect(r.status).toBe(200);
    return ((await r.json()) as { data: { result: Array<{ stream: Record<string, string>; values: unknown[] }> } }).data.result;
  };

  it("| json, | logfmt and | regexp keep the stream's level and add level_extracted", async () => {
    const now = Date.now();
    const push = await fetch(`${t.server.urls.logs}/svc/api/v1/push`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Scope-OrgID": "clash" },
      body: JSON.stringify({ streams: [
        { stream: { app: "json", level: "info" }, values: [[ns(now - 1000), '{"level":"error","msg":"m"}']] },
        { stream: { app: "logfmt", level: "info" }, values: [[ns(now - 1000), "level=warn msg=x"]] },
      ] }),
    });
    expect(push.status).toBe(204);
    expect((await query('{app="json"} | json')).map((s) => s.stream)).toEqual([{ app: "json", level: "info", level_extracted: "error", msg: "m" }]);
    expect((await query('{app="logfmt"} | logfmt')).map((s) => s.stream)).toEqual([{ app: "logfmt", level: "info", level_extracted: "warn", msg: "x" }]);
    expect((await query('{app="logfmt"} | regexp "level=(?P<level>\\\\w+)"')).map((s) => s.stream)).toEqual([{ app: "logfmt", level: "info", level_extracted: "warn" }]);
    expect(await query('{app="json"} | json | level_extracted="error"')).toHaveLength(1);
    expect(await query('{app="json"} | json | level="error"')).toHaveLength(0);
  });
});
