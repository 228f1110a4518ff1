// The Outpost admin page: sign-in gate, then the console's pages. It talks
// only to Outpost's public HTTP APIs, so everything it does a script can do.
import { render } from "preact";
import { LocationProvider } from "preact-iso";
import { useEffect, useState } from "preact/hooks";
import "./style.css";
import { Shell } from "./components/shell.tsx";
import { Loading, ErrorNote } from "./components/ui.tsx";
import { api, ApiFailure, onSignedOut } from "./lib/api.ts";
import { loadSession, SessionContext, type Session } from "./lib/session.ts";
import { adminToken, forgetTopology } from "./lib/stores.ts";
import { LoginPage, Logo } from "./pages/login.tsx";
import { TwoFactorSection } from "./pages/two-factor.tsx";

type State = { phase: "loading" } | { phase: "signed-out"; notice?: string } | { phase: "error"; error: Error } | { phase: "in"; session: Omit<Session, "refresh"> }
  // an administrator must enrol a second factor before anything else (security.totp_required_for_admins)
  | { phase: "enrol" };

function App() {
  const [state, setState] = useState<State>({ phase: "loading" });
  const load = async (notice?: string) => {
    try {
      const session = await loadSession();
      const secondFactor = await api<{ enrolmentRequired?: boolean }>("/api/user/2fa").catch(() => ({ enrolmentRequired: false }));
      setState(secondFactor.enrolmentRequired ? { phase: "enrol" } : { phase: "in", session });
    } catch (err) {
      if (err instanceof ApiFailure && (err.status === 401 || err.status === 403)) setState({ phase: "signed-out", notice });
      else setState({ phase: "error", error: err as Error });
    }
  };
  useEffect(() => {
    void load();
    return onSignedOut(() => {
      // the metrics admin token belongs to the session that entered it
      adminToken.clear();
      setState({ phase: "signed-out", notice: "Your session has ended. Sign in again." });
    });
  }, []);

  if (state.phase === "loading") return <main class="center"><Loading label="Loading Outpost…" /></main>;
  if (state.phase === "error") {
    return (
      <main class="center">
        <ErrorNote error={state.error} />
        <button class="btn primary" onClick={() => load()}>Try again</button>
      </main>
    );
  }
  if (state.phase === "signed-out") return <LoginPage notice={state.notice} onSignedIn={() => { forgetTopology(); adminToken.clear(); return load(); }} />;
  if (state.phase === "enrol") {
    return (
      <main class="login">
        <div class="login-card wide">
          <div class="brand large"><Logo /> Outpost</div>
          <h1>Set up two-factor authentication</h1>
          <p class="alert warn">This server requires administrators to use a second factor. Set it up to continue, or <a href="/logout">sign out</a>.</p>
          <TwoFactorSection onEnabled={() => void load()} />
        </div>
      </main>
    );
  }
  const session: Session = { ...state.session, refresh: () => load() };
  return (
    <SessionContext.Provider value={session}>
      <Shell />
    </SessionContext.Provider>
  );
}

const root = document.getElementById("app")!;
root.textContent = ""; // the static "Loading Outpost…" shown until the script runs
render(
  <LocationProvider>
    <App />
  </LocationProvider>,
  root,
);
