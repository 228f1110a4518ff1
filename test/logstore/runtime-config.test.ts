// Per-tenant overrides from the runtime config file take effect while the
// server runs; a bad file keeps the last good overrides.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pollUntil as waitFor } from "../helpers/eventually.ts";
import { useServer } from "../helpers/server.ts";
import { logClient, nsAgo } from "./helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-runtime-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, "runtime.yaml");
writeFileSync(file, "overrides:\n  small:\n    max_line_size: 10B\n");

describe("log store runtime config", () => {
  const t = useServer({ "logs.runtime_config_file": file, "logs.runtime_config_reload_period": "200ms" });
  const push = (tenant: string, line: string) => logClient(t.server.urls.logs!).push(tenant, [{ stream: { app: "rt" }, values: [[nsAgo(1), line]] }]);

  it("an override applies to its tenant only, and a change is picked up without a restart", async () => {
    const r = await push("small", "longer than ten bytes");
    expect(r.status).toBe(400);
    expect(r.text).toContain("Max entry size '10' bytes exceeded");
    expect((await push("other", "longer than ten bytes")).status).toBe(204);
    writeFileSync(file, "overrides:\n  small:\n    max_line_size: 1KB\n");
    expect(await waitFor(async () => (await push("small", "longer than ten bytes")).status === 204)).toBe(true);
  });

  it("a bad file keeps the last good overrides and says why in the log", async () => {
    writeFileSync(file, "overrides:\n  small:\n    max_line_size: 5B\n");
    expect(await waitFor(async () => (await push("small", "123456")).status === 400)).toBe(true);
    writeFileSync(file, "overrides:\n  small:\n    no_such_limit: 1\n");
    expect(await waitFor(async () => t.server.logs.some((l) => String(l.err ?? "").includes("no_such_limit is not a limit")))).toBe(true);
    expect((await push("small", "123456")).status).toBe(400);
  });
});
