// GET /api/frontend/settings: the part of the real product's frontend
// settings the admin page reads (buildInfo, licenseInfo, the login form), and
// Outpost's own `outpost` block: the edition, and for server admins whether
// the built-in admin still has the default password.
import { API_VERSION, COMMIT, VERSION } from "../../../../version.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import type { LicenceStore } from "../../core/admin/licence-store.ts";

export type Edition = "oss" | "enterprise" | "cloud";

/** buildInfo.edition: the real product's "Open Source" and "Enterprise", and "Cloud" for the cloud edition */
const EDITION_NAMES: Record<Edition, string> = { oss: "Open Source", enterprise: "Enterprise", cloud: "Cloud" };

export interface FrontendSettingsDeps {
  edition: Edition;
  /** the licence (enterprise and cloud editions) */
  licences: LicenceStore | undefined;
  /** the server's root URL (licenseInfo.appUrl) */
  /** the dashboard's root URL (with the bound port when it was chosen with 0) */
  rootUrl: () => string;
  /** adminHasDefaultPassword, memoised (core/identity/bootstrap.ts) */
  adminPasswordIsDefault: () => Promise<boolean>;
  now: () => number;
}

export function registerFrontendSettings(r: Router, deps: FrontendSettingsDeps): void {
  const passwordLogin = deps.edition !== "cloud";

  r.get("/api/frontend/settings", { signedIn: true }, async (c) => {
    const id = identityOf(c);
    const serverAdmin = id.kind === "user" && id.user.isServerAdmin;
    return c.json({
      buildInfo: { version: API_VERSION, commit: COMMIT, edition: EDITION_NAMES[deps.edition], env: "production" },
      licenseInfo: await licenseInfo(deps, serverAdmin),
      passwordLogin,
      disableLoginForm: !passwordLogin,
      appSubUrl: "",
      outpost: {
        edition: deps.edition,
        version: VERSION,
        ...(serverAdmin ? { adminPasswordIsDefault: await deps.adminPasswordIsDefault() } : {}),
      },
    });
  });
}

/**
 * The real product's licenseInfo fields: expiry (epoch seconds, 0 without a
 * valid licence), stateInfo (empty while valid, else why not), licenseUrl
 * (the licence page, for server admins only), edition, enabledFeatures.
 */
async function licenseInfo(deps: FrontendSettingsDeps, serverAdmin: boolean): Promise<Record<string, unknown>> {
  if (!deps.licences) return {};
  const current = await deps.licences.current(deps.now());
  // a LicenceError's message is safe to show (it never holds the token)
  const valid = current !== undefined && !(current instanceof Error);
  const exp = valid && typeof current.exp === "number" ? current.exp : 0;
  const trialExp = valid && current.trial === true && typeof current.trial_exp === "number" ? current.trial_exp : undefined;
  return {
    expiry: exp,
    stateInfo: current === undefined ? "No license found" : current instanceof Error ? current.message : "",
    // the admin page's licence page (Grafana points at its own /admin/licensing)
    licenseUrl: serverAdmin ? "/licence" : "",
    edition: EDITION_NAMES[deps.edition],
    enabledFeatures: {},
    hasValidLicense: valid,
    ...(trialExp !== undefined ? { trialExpiry: trialExp } : {}),
    appUrl: deps.rootUrl(),
  };
}
