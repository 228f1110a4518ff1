// The seeded directory of the LDAP tests (users in nested OUs, groupOfNames
// groups for the memberof overlay) and the ldap.toml blocks that point at a
// slapd (test/helpers/slapd.ts). The bind password comes from
// $__env{OUTPOST_TEST_LDAP_BIND_PW}, set by setBindPasswordEnv.
import { ROOT_DN, ROOT_PW, SUFFIX } from "./slapd.ts";

export function setBindPasswordEnv(): void {
  process.env.OUTPOST_TEST_LDAP_BIND_PW = ROOT_PW;
}

export const PEOPLE = `ou=people,${SUFFIX}`;
export const GROUPS = `ou=groups,${SUFFIX}`;
export const dnOf = (uid: string, ou = `ou=staff,${PEOPLE}`) => `uid=${uid},${ou}`;
export const group = (cn: string) => `cn=${cn},${GROUPS}`;

/** an entry added to groups (ldapadd input: the person, then each group's new member) */
export function personIn(uid: string, groups: string[], ou = `ou=staff,${PEOPLE}`): string {
  const given = uid[0]!.toUpperCase() + uid.slice(1);
  return [person(uid, given, "Added", ou), ...groups.map((g) => `dn: ${group(g)}\nchangetype: modify\nadd: member\nmember: ${dnOf(uid, ou)}\n`)].join("\n");
}

export function person(uid: string, given: string, sn: string, ou = `ou=staff,${PEOPLE}`): string {
  return `dn: ${dnOf(uid, ou)}
objectClass: inetOrgPerson
uid: ${uid}
cn: ${given} ${sn}
givenName: ${given}
sn: ${sn}
mail: ${uid}@example.org
userPassword: ${uid}-pw
`;
}

export const SEED = [
  `dn: ${SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example\n`,
  `dn: ${PEOPLE}\nobjectClass: organizationalUnit\nou: people\n`,
  `dn: ou=staff,${PEOPLE}\nobjectClass: organizationalUnit\nou: staff\n`,
  `dn: ou=contractors,ou=staff,${PEOPLE}\nobjectClass: organizationalUnit\nou: contractors\n`,
  `dn: ${GROUPS}\nobjectClass: organizationalUnit\nou: groups\n`,
  person("alice", "Alice", "Admin"),
  person("bob", "Bob", "Builder"),
  person("carol", "Carol", "Nogroup"),
  person("dave", "Dave", "Contractor", `ou=contractors,ou=staff,${PEOPLE}`),
  person("erin", "Erin", "Late"),
  `dn: ${group("admins")}\nobjectClass: groupOfNames\ncn: admins\nmember: ${dnOf("alice")}\n`,
  `dn: ${group("editors")}\nobjectClass: groupOfNames\ncn: editors\nmember: ${ROOT_DN}\nmember: ${dnOf("bob")}\n`,
  `dn: ${group("viewers")}\nobjectClass: groupOfNames\ncn: viewers\nmember: ${dnOf("dave", `ou=contractors,ou=staff,${PEOPLE}`)}\nmember: ${dnOf("erin")}\n`,
  `dn: ${group("ops")}\nobjectClass: groupOfNames\ncn: ops\nmember: ${ROOT_DN}\nmember: ${dnOf("alice")}\n`,
].join("\n");

const MAPPINGS = `
[[servers.group_mappings]]
group_dn = "${group("admins")}"
org_role = "Admin"
grafana_admin = true

[[servers.group_mappings]]
group_dn = "${group("editors")}"
org_role = "Editor"

[[servers.group_mappings]]
group_dn = "${group("viewers")}"
org_role = "Viewer"
`;

export function serverBlock(o: {
  host?: string;
  port: number;
  tls: "none" | "starttls" | "ldaps";
  ca?: string;
  /** client_cert and client_key (PEM files) */
  clientCert?: { cert: string; key: string };
  timeout?: number;
  groupSearch?: boolean;
  /** search_filter; "(uid=%s)" unless given */
  searchFilter?: string;
  /** search_base_dns; [PEOPLE] unless given */
  baseDns?: string[];
}): string {
  return `
[[servers]]
host = "${o.host ?? "127.0.0.1"}"
port = ${o.port}
use_ssl = ${o.tls === "ldaps"}
start_tls = ${o.tls === "starttls"}
ssl_skip_verify = false
${o.ca ? `root_ca_cert = "${o.ca}"` : ""}
${o.clientCert ? `client_cert = "${o.clientCert.cert}"\nclient_key = "${o.clientCert.key}"` : ""}
bind_dn = "${ROOT_DN}"
bind_password = "$__env{OUTPOST_TEST_LDAP_BIND_PW}"
timeout = ${o.timeout ?? 5}
search_filter = "${o.searchFilter ?? "(uid=%s)"}"
search_base_dns = [${(o.baseDns ?? [PEOPLE]).map((b) => `"${b}"`).join(", ")}]
${o.groupSearch ? `group_search_filter = "(&(objectClass=groupOfNames)(member=%s))"\ngroup_search_base_dns = ["${GROUPS}"]` : ""}

[servers.attributes]
name = "givenName"
surname = "sn"
username = "uid"
member_of = "memberOf"
email = "mail"
${MAPPINGS}`;
}
