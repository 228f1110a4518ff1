// The real products' single-dash flags map onto Outpost's options, so
// operators' scripts keep working.
import { describe, expect, it } from "vitest";
import { aliasLegacyFlags } from "../../src/main.ts";

describe("legacy single-dash flags", () => {
  it("map to the matching options, with or without =value", () => {
    expect(aliasLegacyFlags(["serve", "-server.http-tls-client-auth=VerifyClientCertIfGiven"])).toEqual(["serve", "--http-tls-client-auth=VerifyClientCertIfGiven"]);
    expect(aliasLegacyFlags(["-ingester.instance-limits.max-inflight-push-requests=5000", "-querier.max-concurrent", "4"])).toEqual([
      "--max-inflight-push-requests=5000",
      "--querier-max-concurrent",
      "4",
    ]);
    expect(aliasLegacyFlags(["-server.http-idle-timeout=5m", "-server.http-read-timeout=1m", "-server.http-write-timeout", "3m"])).toEqual([
      "--http-idle-timeout=5m",
      "--http-read-timeout=1m",
      "--http-write-timeout",
      "3m",
    ]);
  });

  it("a Go boolean flag changes the default only in its false form", () => {
    expect(aliasLegacyFlags(["-ingester.stream-chunks-when-using-blocks=false"])).toEqual(["--no-stream-chunks-when-using-blocks"]);
    expect(aliasLegacyFlags(["-ingester.stream-chunks-when-using-blocks=true", "--in-memory"])).toEqual(["--in-memory"]);
    expect(aliasLegacyFlags(["-ingester.stream-chunks-when-using-blocks"])).toEqual([]);
  });
});
