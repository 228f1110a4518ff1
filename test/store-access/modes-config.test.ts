// The stores' modes as configured: a loud start for a store anyone on the
// network can write into, and combinations that could not work refused.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.ts";
import { exposureWarnings } from "../../src/store-access/exposure.ts";
import { startTestServer } from "../helpers/server.ts";

const config = (flags: Record<string, unknown>) => loadConfig({ flags: { "storage.in_memory": true, ...flags } });

describe("a store exposed in header mode is announced at start", () => {
  it("beyond the loopback interface in header mode without mTLS: one warning per store, naming the risk and the flag", () => {
    const warnings = exposureWarnings(config({ "server.host": "0.0.0.0" }));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain("the log store listens on 0.0.0.0:3100 in header mode without mutual TLS");
    expect(warnings[0]).toContain("--logs-auth-type tokens");
    expect(warnings[1]).toContain("the metrics store listens on 0.0.0.0:9009");
    expect(warnings[1]).toContain("--metrics-auth-type tokens");
  });

  it("no warning on the loopback interface, in tokens mode, or with verified client certificates", () => {
    expect(exposureWarnings(config({}))).toEqual([]);
    expect(exposureWarnings(config({ "server.host": "::1" }))).toEqual([]);
    expect(exposureWarnings(config({ "server.host": "0.0.0.0", "logs.auth.type": "tokens", "metrics.auth.type": "tokens" }))).toEqual([]);
    const warnings = exposureWarnings(config({ "server.host": "0.0.0.0", "metrics.enabled": false }));
    expect(warnings).toHaveLength(1);
  });

  it("the running server logs it", async () => {
    const s = await startTestServer({ "server.host": "0.0.0.0", "metrics.auth.type": "tokens" });
    try {
      const warned = s.logs.filter((l) => l.level === "warn" && String(l.msg).includes("header mode without mutual TLS"));
      expect(warned).toHaveLength(1);
      expect(String(warned[0]!.msg)).toContain("log store");
    } finally {
      await s.stop();
    }
  }, 60_000);
});

describe("combinations refused at start", () => {
  it("tokens mode with auth_enabled off, or behind the htpasswd proxy, names the keys", () => {
    expect(() => config({ "logs.auth.type": "tokens", "logs.auth_enabled": false })).toThrow(/logs\.auth\.type.*logs\.auth_enabled is off/s);
    expect(() => config({ "logs.auth.type": "tokens", "logs.auth_proxy.enabled": true, "logs.auth_proxy.htpasswd_file": "/dev/null" })).toThrow(/logs\.auth_proxy\.enabled/);
    expect(() => config({ "metrics.auth.type": "passwords" })).toThrow(/metrics\.auth\.type/);
  });
});
