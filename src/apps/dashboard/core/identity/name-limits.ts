// How long a name may be: the sizes of the real product's columns (its
// migrations: org.name, team.name/email, user.login/email 190, user.name 255,
// api_key.name 190, role.name/display_name/group_name 190, alert_rule.title
// and rule_group 190, dashboard.title and playlist.name 255, folder.title 189).
// The real product leaves these to the database; here a longer name is a 400
// naming the field before it reaches an index (a btree row holds ~2.7 kB, so
// an unchecked name ended in a 500, or in a misleading "name taken").
import { badRequest } from "../../../../lib/errors.ts";

export const NAME_LIMITS = {
  orgName: 190,
  teamName: 190,
  teamEmail: 190,
  userLogin: 190,
  userEmail: 190,
  userName: 255,
  serviceAccountName: 190,
  tokenName: 190,
  roleName: 190,
  roleDisplayName: 190,
  roleGroup: 190,
  alertRuleTitle: 190,
  alertRuleGroup: 190,
  dashboardTitle: 255,
  folderTitle: 189,
  playlistTitle: 255,
} as const;

/** length in characters (code points), as the database's varchar counts it */
export function charLength(value: string): number {
  if (value.length <= 1) return value.length;
  let n = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length) {
      const d = value.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** why a value is too long, or undefined */
export function tooLong(value: string | undefined, max: number): string | undefined {
  if (value === undefined || value.length <= max || charLength(value) <= max) return undefined;
  return `must be at most ${max} characters`;
}

/** C0 and C1 control characters (a NUL cannot even be stored) */
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** a login or email another system gave (a directory, a provider) that the users table can hold: no control characters, within its column */
export function storableIdentifier(value: string, max: number): boolean {
  return !CONTROL_CHARACTERS.test(value) && tooLong(value, max) === undefined;
}

/** refuses a legacy-API field longer than max: 400 "bad request data: <field> must be at most N characters" */
export function requireMaxLength(field: string, value: string | undefined, max: number): void {
  const problem = tooLong(value, max);
  if (problem) throw badRequest(`bad request data: ${field} ${problem}`, { messageId: "bad-request.invalid-field" });
}
