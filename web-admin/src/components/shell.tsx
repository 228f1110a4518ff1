// The signed-in frame: navigation, organization switcher, user menu, the
// default-password banner and the pages. Focus moves to the page heading on
// every navigation so keyboard and screen reader users land on the new page.
import { Route, Router, useLocation } from "preact-iso";
import type { ComponentChildren } from "preact";
import { useEffect, useErrorBoundary, useRef, useState } from "preact/hooks";
import { api } from "../lib/api.ts";
import { editionOf, useSession } from "../lib/session.ts";
import { adminToken, forgetTopology } from "../lib/stores.ts";
import { AccessPage } from "../pages/access.tsx";
import { AuthenticationPage } from "../pages/authentication.tsx";
import { DataSourcesPage } from "../pages/datasources.tsx";
import { LicencePage } from "../pages/licence.tsx";
import { Logo } from "../pages/login.tsx";
import { LogTenantsPage } from "../pages/log-tenants.tsx";
import { MetricsTenantsPage } from "../pages/metrics-tenants.tsx";
import { OverviewPage } from "../pages/overview.tsx";
import { PasswordPage } from "../pages/password.tsx";
import { ServiceAccountsPage } from "../pages/service-accounts.tsx";
import { UsersPage } from "../pages/users.tsx";
import { ErrorNote } from "./ui.tsx";

interface NavItem {
  path: string;
  label: string;
  show?: (edition: string, admin: boolean) => boolean;
}

const NAV: NavItem[] = [
  { path: "/", label: "Overview" },
  // the stores' tenant pages read every tenant: server administrators only
  { path: "/metrics-tenants", label: "Metrics tenants", show: (_, admin) => admin },
  { path: "/log-tenants", label: "Log tenants", show: (_, admin) => admin },
  // the stores' access policies and tokens reach every tenant: server administrators only
  { path: "/access", label: "Access", show: (_, admin) => admin },
  // the sign-in providers' configuration and the LDAP debug API: server administrators only
  { path: "/authentication", label: "Authentication", show: (_, admin) => admin },
  { path: "/service-accounts", label: "Service accounts" },
  { path: "/datasources", label: "Data sources" },
  { path: "/users", label: "Users and teams" },
  { path: "/licence", label: "Licence", show: (edition) => edition === "enterprise" },
];

export function Shell() {
  const session = useSession();
  const { path } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const edition = editionOf(session);
  const first = useRef(true);
  useEffect(() => {
    setMenuOpen(false);
    if (first.current) {
      first.current = false;
      return;
    }
    // after a navigation the new page's heading takes focus (its content may still be loading)
    requestAnimationFrame(() => document.querySelector<HTMLElement>("[data-page-title]")?.focus());
  }, [path]);
  const isActive = (p: string) => (p === "/" ? path === "/" : path.startsWith(p));
  return (
    <div class="shell">
      <a class="skip" href="#content">Skip to content</a>
      <aside class={`sidebar ${menuOpen ? "open" : ""}`}>
        <div class="brand">
          <Logo /> <span>Outpost</span>
          <button type="button" class="icon-btn menu-toggle" aria-expanded={menuOpen} aria-controls="main-nav" aria-label="Menu" onClick={() => setMenuOpen(!menuOpen)}>☰</button>
        </div>
        <nav id="main-nav" aria-label="Main">
          <ul>
            {NAV.filter((n) => !n.show || n.show(edition, session.user.isSvcAdmin)).map((n) => (
              <li>
                <a href={n.path} aria-current={isActive(n.path) ? "page" : undefined}>{n.label}</a>
              </li>
            ))}
          </ul>
        </nav>
        <p class="edition">{session.settings.buildInfo?.edition ?? edition} · {session.settings.outpost?.version ?? session.settings.buildInfo?.version ?? ""}</p>
      </aside>
      <div class="main">
        <TopBar />
        {session.settings.outpost?.adminPasswordIsDefault && path !== "/profile/password" && (
          <div class="banner" role="alert">
            <strong>The admin user still has the default password.</strong> Anyone who can reach this server can sign in as administrator.
            <a class="btn primary small" href="/profile/password">Change it now</a>
          </div>
        )}
        <main id="content" key={session.user.orgId}>
          <PageErrorBoundary key={path}>
          <Router>
            <Route path="/" component={OverviewPage} />
            <Route path="/metrics-tenants" component={MetricsTenantsPage} />
            <Route path="/log-tenants" component={LogTenantsPage} />
            <Route path="/access" component={AccessPage} />
            <Route path="/authentication" component={AuthenticationPage} />
            <Route path="/service-accounts" component={ServiceAccountsPage} />
            <Route path="/datasources" component={DataSourcesPage} />
            <Route path="/users" component={UsersPage} />
            <Route path="/licence" component={LicencePage} />
            <Route path="/profile/password" component={PasswordPage} />
            <Route default component={NotFound} />
          </Router>
          </PageErrorBoundary>
        </main>
      </div>
    </div>
  );
}

function TopBar() {
  const session = useSession();
  const [error, setError] = useState<Error>();
  // a refused switch remounts the select, so it shows the organization still in use
  const [attempt, setAttempt] = useState(0);
  const switchOrg = async (orgId: string) => {
    setError(undefined);
    try {
      await api(`/api/user/using/${orgId}`, { method: "POST" });
      forgetTopology();
      await session.refresh();
    } catch (err) {
      setError(err as Error);
      setAttempt((a) => a + 1);
    }
  };
  return (
    <header class="topbar">
      <div class="org-switch">
        {session.orgs.length > 0 && (
          <>
            <label for="org-switch">Organization</label>
            <select id="org-switch" key={attempt} value={String(session.user.orgId)} onChange={(e) => switchOrg((e.target as HTMLSelectElement).value)}>
              {session.orgs.map((o) => <option value={String(o.orgId)}>{o.name} ({o.role})</option>)}
            </select>
          </>
        )}
        <ErrorNote error={error} />
      </div>
      <div class="user-menu">
        <span class="who" title={session.user.email}>
          {session.user.name || session.user.login}
          {session.user.isSvcAdmin && <span class="badge neutral">server admin</span>}
        </span>
        <a class="btn plain small" href="/profile/password">Change password</a>
        <button type="button" class="btn plain small" onClick={() => { adminToken.clear(); location.assign("/logout"); }}>Sign out</button>
      </div>
    </header>
  );
}

/** a page that throws while rendering shows the error instead of a blank window */
function PageErrorBoundary(props: { children: ComponentChildren }) {
  const [error, reset] = useErrorBoundary();
  if (error) {
    return (
      <section>
        <h1 tabIndex={-1} data-page-title>Something went wrong</h1>
        <ErrorNote error={error instanceof Error ? error : new Error(String(error))} />
        <button type="button" class="btn" onClick={reset}>Try again</button>
      </section>
    );
  }
  return <>{props.children}</>;
}

function NotFound() {
  return (
    <section>
      <h1 tabIndex={-1} data-page-title>Page not found</h1>
      <p>There is no page at this address. <a href="/">Go to the overview</a>.</p>
    </section>
  );
}
