// What an OpenID Connect sign-in reads from the provider's claims (the ID
// token's, with userinfo's added), in the real product's [auth.generic_oauth]
// order (docs/authentication.md, "OpenID Connect"): the email, login, name,
// role, groups and external organizations, through the JMESPath settings.
// The claims are the provider's: every value is checked for its type, lists
// are bounded, and login and email must fit the users table. A JMESPath
// expression that fails over them (a claim absent or of another type:
// contains(groups[*], 'x') without a groups claim) gives no value, as in the
// real product, with a warning; org_attribute_path's failure refuses the
// sign-in, as the real product's does (memberships must not follow a list that
// could not be read). Values the user could choose are never put into a
// refusal's message.
import { search as jmesSearch } from "jmespath";
import { isOrgRole, type OrgRole } from "./basic-roles.ts";
import { CONTROL_CHARACTERS, NAME_LIMITS, storableIdentifier, tooLong } from "./name-limits.ts";

/** a sign-in refused: the message is shown on the sign-in page (it holds no secret) */
export class OAuthRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OAuthRefusal";
  }
}

/** the most entries a list claim (groups, external organizations) may hold */
export const MAX_CLAIM_LIST = 10_000;
/** the longest subject: OpenID Connect Core 1.0 §2 bounds sub to 255 ASCII characters */
const MAX_SUBJECT = 255;

export type Claims = Record<string, unknown>;

/** the settings the claims are read with (auth.generic_oauth) */
export interface ClaimSettings {
  name: string;
  email_attribute_path: string;
  email_attribute_name: string;
  login_attribute_path: string;
  name_attribute_path: string;
  role_attribute_path: string;
  role_attribute_strict: boolean;
  allow_assign_grafana_admin: boolean;
  groups_attribute_path: string;
  org_attribute_path: string;
}

type PathSetting = "email_attribute_path" | "login_attribute_path" | "name_attribute_path" | "role_attribute_path" | "groups_attribute_path" | "org_attribute_path";

export interface ClaimReader {
  sub(claims: Claims): string;
  email(claims: Claims): string;
  login(claims: Claims, email: string): string;
  name(claims: Claims, login: string): string;
  /** role_attribute_path's role (GrafanaAdmin: Admin); undefined: none valid. serverAdmin undefined: left as it is */
  role(claims: Claims): { role: OrgRole | undefined; serverAdmin: boolean | undefined };
  groups(claims: Claims): string[];
  externalOrgs(claims: Claims): string[];
}

// eslint-disable-next-line no-control-regex
const CONTROL_ALL = /[\u0000-\u001f\u007f-\u009f]/g;

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);
const own = (o: unknown, key: string): unknown =>
  o !== null && typeof o === "object" && !Array.isArray(o) && Object.hasOwn(o, key) ? (o as Record<string, unknown>)[key] : undefined;

export function createClaimReader(s: ClaimSettings, warn: (msg: string, fields: Record<string, unknown>) => void): ClaimReader {
  /** a JMESPath setting over the claims: undefined when empty, null or failing (refused for org_attribute_path) */
  const search = (setting: PathSetting, claims: Claims): unknown => {
    const expression = s[setting];
    if (!expression.trim()) return undefined;
    let v: unknown;
    try {
      v = jmesSearch(claims, expression) as unknown;
    } catch (err) {
      // the library's message names types and functions, not values
      const error = (err as Error).message;
      if (setting !== "org_attribute_path") {
        warn("OAuth claims: a JMESPath setting failed over the provider's claims: no value", { setting, error });
        return undefined;
      }
      warn("OAuth sign-in refused: a JMESPath setting failed over the provider's claims", { setting, error });
      throw new OAuthRefusal(`The claims ${s.name} gave could not be read with auth.generic_oauth.${setting}: ask an administrator`);
    }
    return v === null ? undefined : v;
  };

  /** a list claim: one string, or a list whose strings (and, for ids, integers) are kept; bounded */
  const list = (setting: PathSetting, what: string, claims: Claims, ids: boolean): string[] => {
    const v = search(setting, claims);
    if (typeof v === "string") return [v];
    if (!Array.isArray(v)) return [];
    if (v.length > MAX_CLAIM_LIST) {
      warn(`OAuth sign-in refused: too many ${what}`, { setting, count: v.length });
      throw new OAuthRefusal(`${s.name} gave more than ${MAX_CLAIM_LIST} ${what} for the user: ask an administrator`);
    }
    const out: string[] = [];
    for (const x of v) {
      if (typeof x === "string") out.push(x);
      else if (ids && Number.isSafeInteger(x)) out.push(String(x));
    }
    return out;
  };

  /** a login or email as the users table holds it: no control characters, within its column's size */
  const checked = (value: string, what: "login" | "email", max: number): string => {
    if (!storableIdentifier(value, max)) {
      warn(`OAuth sign-in refused: the ${what} is not valid`, { length: value.length });
      throw new OAuthRefusal(`${s.name} gave a ${what} that is not valid here (at most ${max} characters, no control characters)`);
    }
    return value;
  };

  return {
    sub(claims) {
      const sub = typeof claims.sub === "string" ? claims.sub : "";
      if (!sub) throw new OAuthRefusal(`${s.name} did not name the user (no sub claim)`);
      if (sub.length > MAX_SUBJECT || CONTROL_CHARACTERS.test(sub)) throw new OAuthRefusal(`${s.name} named the user with a subject that is not valid (sub claim)`);
      return sub;
    },

    // the real product's order: the email claim, email_attribute_path, attributes[email_attribute_name], upn
    email(claims) {
      const name = s.email_attribute_name;
      const fromAttributes = (v: unknown) => str(Array.isArray(v) ? v[0] : v);
      const email =
        str(claims.email) ??
        str(search("email_attribute_path", claims)) ??
        (name ? fromAttributes(own(claims.attributes, name)) ?? fromAttributes(own(claims, name)) : undefined) ??
        (str(claims.upn)?.includes("@") ? str(claims.upn) : undefined);
      if (!email || !email.includes("@")) throw new OAuthRefusal(`${s.name} gave no email address for the user: it is needed to sign in`);
      return checked(email, "email", NAME_LIMITS.userEmail);
    },

    // the real product's order: the login claim, login_attribute_path, the username claim, the email
    login(claims, email) {
      const login = str(claims.login) ?? str(search("login_attribute_path", claims)) ?? str(claims.username) ?? email;
      return checked(login, "login", NAME_LIMITS.userLogin);
    },

    // name_attribute_path, the name claim, display_name, preferred_username, the login; control characters dropped, cut to the column's size
    name(claims, login) {
      const raw = str(search("name_attribute_path", claims)) ?? str(claims.name) ?? str(claims.display_name) ?? str(claims.preferred_username) ?? login;
      const clean = raw.replace(CONTROL_ALL, "").trim();
      return tooLong(clean, NAME_LIMITS.userName) ? Array.from(clean).slice(0, NAME_LIMITS.userName).join("") : clean;
    },

    role(claims) {
      const value = search("role_attribute_path", claims);
      const text = typeof value === "string" ? value : "";
      const serverAdmin = s.allow_assign_grafana_admin ? text === "GrafanaAdmin" : undefined;
      if (text === "GrafanaAdmin") return { role: "Admin", serverAdmin };
      return { role: isOrgRole(text) ? text : undefined, serverAdmin };
    },

    groups: (claims) => list("groups_attribute_path", "groups", claims, false),
    externalOrgs: (claims) => list("org_attribute_path", "organizations", claims, true),
  };
}
