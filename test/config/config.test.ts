import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/load.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-config-"));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const problemsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error("expected a ConfigError");
};

describe("configuration", () => {
  it("defaults: ports 3000/3100/9009, host 127.0.0.1, oss, ./outpost-data, 16 MiB, 10 s", () => {
    const c = loadConfig();
    expect(c.dashboard.http_port).toBe(3000);
    expect(c.logs.http_port).toBe(3100);
    expect(c.metrics.http_port).toBe(9009);
    expect(c.server.host).toBe("127.0.0.1");
    expect(c.server.edition).toBe("oss");
    expect(c.storage).toEqual({
      data_dir: "./outpost-data", in_memory: false, min_free_disk_space: 100 * 1024 * 1024, disk_check_interval: 30_000,
      database_url: "", database_password_file: "", database_ca_file: "", database_max_connections: 10,
    });
    expect(c.server.max_request_body_size).toBe(16 * 1024 * 1024);
    expect(c.server.shutdown_timeout).toBe(10_000);
    expect(c.logs.enabled).toBe(true);
    expect(c.security.admin_password).toBe("admin");
  });

  it("file < environment < flags", () => {
    const path = file("layers.yaml", "dashboard:\n  http_port: 4000\nlogs:\n  http_port: 4100\nmetrics:\n  http_port: 4200\n");
    const c = loadConfig({
      file: path,
      env: { OUTPOST_LOGS_HTTP_PORT: "5100", OUTPOST_METRICS_HTTP_PORT: "5200" },
      flags: { "metrics.http_port": "6200" },
    });
    expect(c.dashboard.http_port).toBe(4000);
    expect(c.logs.http_port).toBe(5100);
    expect(c.metrics.http_port).toBe(6200);
  });

  it("sizes and durations accept units", () => {
    const path = file("units.yaml", "server:\n  max_request_body_size: 256KB\n  shutdown_timeout: 1m30s\n");
    const c = loadConfig({ file: path });
    expect(c.server.max_request_body_size).toBe(256_000);
    expect(c.server.shutdown_timeout).toBe(90_000);
    expect(loadConfig({ flags: { "server.max_request_body_size": "1MiB" } }).server.max_request_body_size).toBe(1_048_576);
  });

  it("a wrong type names the key, the file, the value and what is expected", () => {
    const path = file("bad-type.yaml", "dashboard:\n  http_port: lots\n");
    expect(problemsOf(() => loadConfig({ file: path }))).toEqual([
      `dashboard.http_port (in ${path}): must be an integer from 0 to 65535, got "lots"`,
    ]);
  });

  it("an unknown key is refused, listing the keys its block accepts", () => {
    const path = file("unknown.yaml", "metrics:\n  querier:\n    max_concurrent: 4\n    colour: blue\n");
    expect(problemsOf(() => loadConfig({ file: path }))).toEqual([
      `metrics.querier.colour (in ${path}): unknown key; metrics.querier accepts max_concurrent`,
    ]);
  });

  it("the log store's otlp_config is read from the file, and a bad rule names its field (issue 24)", () => {
    const good = file("otlp.yaml", "logs:\n  limits:\n    otlp_config:\n      log_attributes:\n        - action: drop\n          regex: 'debug\\..*'\n");
    expect(loadConfig({ file: good }).logs.limits.otlp_config).toEqual({ log_attributes: [{ action: "drop", regex: "debug\\..*" }] });
    expect(loadConfig({}).logs.limits.otlp_config).toEqual({});
    const bad = file("otlp-bad.yaml", "logs:\n  limits:\n    otlp_config:\n      scope_attributes:\n        - action: index_label\n          attributes: [a]\n");
    const problems = problemsOf(() => loadConfig({ file: bad }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^logs\.limits\.otlp_config\.scope_attributes\.0\.action .*must be one of structured_metadata, drop/);
    const both = file("otlp-both.yaml", "logs:\n  limits:\n    otlp_config:\n      log_attributes:\n        - attributes: [a]\n          regex: b\n");
    expect(problemsOf(() => loadConfig({ file: both }))[0]).toMatch(/either attributes or regex/);
  });

  it("an unknown block is refused", () => {
    const path = file("unknown-block.yaml", "servers:\n  host: 0.0.0.0\n");
    expect(problemsOf(() => loadConfig({ file: path }))[0]).toBe(
      `servers (in ${path}): unknown block; the config file accepts server, dashboard, logs, metrics, security, auth, storage, backups, datasources`,
    );
  });

  it("bad enum values and bad units say what is allowed", () => {
    const path = file("bad-values.yaml", "server:\n  edition: premium\n  max_request_body_size: 12 parsecs\n  shutdown_timeout: soon\n");
    expect(problemsOf(() => loadConfig({ file: path })).sort()).toEqual([
      `server.edition (in ${path}): must be "cloud", "enterprise" or "oss", got "premium"`,
      `server.max_request_body_size (in ${path}): must be a size such as 16MiB or 256KB, got "12 parsecs"`,
      `server.shutdown_timeout (in ${path}): must be a duration such as 10s, 1m30s or 7d, got "soon"`,
    ]);
  });

  it("a bad flag value names the flag", () => {
    expect(problemsOf(() => loadConfig({ flags: { "logs.http_port": "70000" } }))).toEqual([
      'logs.http_port (from --logs-port): must be an integer from 0 to 65535, got 70000',
    ]);
  });

  it("a bad environment value names the variable", () => {
    expect(problemsOf(() => loadConfig({ env: { OUTPOST_SERVER_LOG_LEVEL: "loud" } }))).toEqual([
      'server.log_level (from $OUTPOST_SERVER_LOG_LEVEL): must be "debug", "error", "info" or "warn", got "loud"',
    ]);
  });

  it("a secret value is never echoed", () => {
    const path = file("secret.yaml", "security:\n  admin_password: 12345\n");
    const problems = problemsOf(() => loadConfig({ file: path }));
    expect(problems).toEqual([`security.admin_password (in ${path}): must be a non-empty string, got <redacted>`]);
  });

  it("YAML syntax errors give the line and column", () => {
    const path = file("syntax.yaml", "server:\n  host: [unclosed\n");
    const [problem] = problemsOf(() => loadConfig({ file: path }));
    expect(problem).toMatch(new RegExp(`^config file ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: line \\d+, column \\d+: `));
  });

  it("a missing file is reported", () => {
    expect(problemsOf(() => loadConfig({ file: join(dir, "nope.yaml") }))).toEqual([
      `config file ${join(dir, "nope.yaml")}: no such file`,
    ]);
  });

  it("a file whose top level is not a mapping is refused", () => {
    const path = file("list.yaml", "- server\n");
    expect(problemsOf(() => loadConfig({ file: path }))[0]).toMatch(/expected a mapping of blocks/);
  });

  it("a block that is not a mapping is refused", () => {
    const path = file("scalar-block.yaml", "server: 5\n");
    expect(problemsOf(() => loadConfig({ file: path }))).toEqual([`server (in ${path}): must be an object, got 5`]);
  });

  it("two enabled listeners on one port are refused; a disabled one does not count", () => {
    expect(problemsOf(() => loadConfig({ flags: { "logs.http_port": 3000 } }))).toEqual([
      "logs.http_port (from --logs-port): port 3000 is already used by dashboard.http_port",
    ]);
    expect(loadConfig({ flags: { "logs.http_port": 3000, "logs.enabled": false } }).logs.http_port).toBe(3000);
  });

  it("an empty file means all defaults", () => {
    expect(loadConfig({ file: file("empty.yaml", "") }).dashboard.http_port).toBe(3000);
  });
});
