// The Host names a store listener accepts, per bind address (a pure function).
import { describe, expect, it } from "vitest";
import { allowedHostSet, hostnameOfHeader } from "../../src/lib/http/allowed-hosts.ts";

describe("allowed hosts", () => {
  it("bound to loopback: the loopback names and the bind address, not the machine's name", () => {
    const set = allowedHostSet({ configured: [], bindHost: "127.0.0.1", machineNames: ["box"] })!;
    expect([...set].sort()).toEqual(["127.0.0.1", "::1", "localhost"]);
  });
  it("bound to a wildcard address: the machine's names too", () => {
    for (const bindHost of ["0.0.0.0", "::"]) {
      const set = allowedHostSet({ configured: ["Logs.Example.com"], bindHost, machineNames: ["box"] })!;
      expect(set.has("box")).toBe(true);
      expect(set.has("logs.example.com")).toBe(true);
      expect(set.has("0.0.0.0")).toBe(false);
    }
  });
  it("bound to one address: that address", () => {
    expect(allowedHostSet({ configured: [], bindHost: "192.0.2.7" })!.has("192.0.2.7")).toBe(true);
  });
  it("* allows any", () => {
    expect(allowedHostSet({ configured: ["a", "*"], bindHost: "127.0.0.1" })).toBeUndefined();
  });
  it("Host header forms", () => {
    expect(hostnameOfHeader("Example.COM:3100")).toBe("example.com");
    expect(hostnameOfHeader("[::1]:3100")).toBe("::1");
    expect(hostnameOfHeader("[::1]")).toBe("::1");
    expect(hostnameOfHeader("localhost.")).toBe("localhost");
    expect(hostnameOfHeader("::1")).toBe("::1");
  });
});
