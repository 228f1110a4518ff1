// The LDAP servers file (auth.ldap.config_file, the real product's ldap.toml):
// defaults, $__env{} and $__file{} for the bind password, and an invalid file
// refused at start with messages naming each field; the active sync's cron
// expression and the directory concurrency keys of the main configuration.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadLdapConfig, parseLdapConfig } from "../../src/config/ldap.ts";
import { loadConfig } from "../../src/config/load.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";
import { startTestServer } from "../helpers/server.ts";

const MINIMAL = `[[servers]]\nhost = "ldap.example.org"\nsearch_filter = "(uid=%s)"\nsearch_base_dns = ["dc=example,dc=org"]\n`;
const problems = (text: string, env: Record<string, string> = {}) => {
  try {
    parseLdapConfig(text, "ldap.toml", env);
  } catch (err) {
    return (err as Error).message.split("\n").slice(1).map((l) => l.trim());
  }
  return [];
};

describe("ldap.toml", () => {
  const dir = tempDirs("outpost-ldap-config-");

  it("defaults as the real product's: port 389 (636 with use_ssl), timeout 10 s, org 1 and Viewer for a mapping", () => {
    const c = parseLdapConfig(`${MINIMAL}[[servers.group_mappings]]\ngroup_dn = "*"\n`, "ldap.toml", {});
    expect(c.servers[0]).toMatchObject({ hosts: ["ldap.example.org"], port: 389, timeoutSeconds: 10, useSsl: false, bindPassword: "" });
    expect(c.servers[0]!.groupMappings).toEqual([{ groupDn: "*", orgId: 1, orgRole: "Viewer", serverAdmin: undefined }]);
    expect(parseLdapConfig(MINIMAL.replace('"\n', '"\nuse_ssl = true\n'), "ldap.toml", {}).servers[0]!.port).toBe(636);
  });

  it("bind_password from $__env{VAR} or $__file{/path}; a missing one names the field, never the value", () => {
    const file = join(dir(), "pw");
    writeFileSync(file, "from-file\n");
    expect(parseLdapConfig(`${MINIMAL}bind_password = "$__env{LDAP_PW}"\n`, "ldap.toml", { LDAP_PW: "from-env" }).servers[0]!.bindPassword).toBe("from-env");
    expect(parseLdapConfig(`${MINIMAL}bind_password = "$__file{${file}}"\n`, "ldap.toml", {}).servers[0]!.bindPassword).toBe("from-file");
    expect(problems(`${MINIMAL}bind_password = "$__env{LDAP_PW}"\n`)).toEqual(["servers[0].bind_password: environment variable LDAP_PW is not set"]);
  });

  it("an invalid file: each problem names its field", () => {
    expect(problems("servers = 3")).toEqual([expect.stringMatching(/^servers: must be/)]);
    expect(problems(`[[servers]]\nhost = "x"\nport = 99999\nsearch_filter = "(uid=)"\nsearch_base_dns = []\ncolour = "red"\n[[servers.group_mappings]]\ngroup_dn = "cn=a"\norg_role = "Boss"\n`).sort()).toEqual([
      "servers[0].colour: unknown key",
      expect.stringMatching(/^servers\[0\]\.group_mappings\[0\]\.org_role: must be Admin, Editor, Viewer or None/),
      expect.stringMatching(/^servers\[0\]\.port: must be a port from 1 to 65535/),
      expect.stringMatching(/^servers\[0\]\.search_base_dns: must be/),
      expect.stringMatching(/^servers\[0\]\.search_filter: must be a filter holding %s/),
    ]);
    expect(problems(`${MINIMAL}use_ssl = true\nstart_tls = true\nclient_cert = "/nonexistent.pem"\n`)).toEqual([
      expect.stringMatching(/^servers\[0\]\.start_tls: use_ssl and start_tls exclude each other/),
      "servers[0].client_key: client_cert and client_key go together",
      "servers[0].client_cert: cannot read /nonexistent.pem: ENOENT",
    ]);
    expect(problems("[[servers]\n")[0]).toMatch(/^not valid TOML/);
    expect(() => loadLdapConfig("/nonexistent/ldap.toml")).toThrow(/cannot read the file: ENOENT \(auth\.ldap\.config_file\)/);
  });

  it("the server does not start with an invalid file, and says which field", async () => {
    const file = join(dir(), "ldap.toml");
    writeFileSync(file, MINIMAL.replace('"(uid=%s)"', '"(uid=x)"'));
    await expect(startTestServer({ "auth.ldap.enabled": true, "auth.ldap.config_file": file })).rejects.toThrow(/servers\[0\]\.search_filter/);
  });
  it("auth.ldap.sync_cron: the real product's 5 fields, 6 with seconds first, or a nickname; anything else is refused naming the key", () => {
    for (const cron of ["0 1 * * *", "0 0 1 * * *", "@hourly", "*/15 * * * *"]) {
      expect(loadConfig({ flags: { "auth.ldap.sync_cron": cron } }).auth.ldap.sync_cron).toBe(cron);
    }
    for (const cron of ["", "every hour", "61 * * * *", "@every 1h"]) {
      expect(() => loadConfig({ flags: { "auth.ldap.sync_cron": cron } }), cron).toThrow(/auth\.ldap\.sync_cron.*must be a cron expression/);
    }
    expect(() => loadConfig({ flags: { "auth.ldap.max_concurrent_operations": 0 } })).toThrow(/auth\.ldap\.max_concurrent_operations/);
  });
});
