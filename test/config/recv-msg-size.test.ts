// server.max_recv_msg_size (issue 16 #4, #5): the decoded-size limit of pushes
// has the real stores' default and cannot be turned off with 0.
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/load.ts";

describe("server.max_recv_msg_size", () => {
  it("defaults to 100 MiB and takes units", () => {
    expect(loadConfig({ flags: {} }).server.max_recv_msg_size).toBe(100 * 1024 * 1024);
    expect(loadConfig({ flags: { "server.max_recv_msg_size": "1KiB" } }).server.max_recv_msg_size).toBe(1024);
  });

  it("0 is refused, naming the flag", () => {
    let error: unknown;
    try {
      loadConfig({ flags: { "server.max_recv_msg_size": "0" } });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain("server.max_recv_msg_size (from --max-recv-msg-size): must be a size of at least 1 byte, got 0");
  });
});
