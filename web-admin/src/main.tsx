// The Outpost admin page: sign-in gate, then the console's pages. It talks
// only to Outpost's public HTTP APIs, so everything it does a script can do.
import { render } from "preact";
import { LocationProvider } from "preact-iso";
import { useEffect, useState } from "preact/hooks";
import "./style.css";
import { Shell } from "./components/shell.tsx";
import { Loading, ErrorNote } from "./components/ui.tsx";
import { ApiFailure, onSignedOut } from "./lib/api.ts";
import { loadSession, SessionContext, type Session } from "./lib/session.ts";
import { adminToken, forgetTopology } from "./lib/stores.ts";
import { LoginPage } from "./pages/login.tsx";

type State = { phase: "loading" } | { phase: "signed-out"; notice?: string } | { phase: "error"; error: Error } | { phase: "in"; session: Omit<Session, "refresh"> };

function App() {
  const [state, setState] = useState<State>({ phase: "loading" });
  const load = async (notice?: string) => {
    try {
      setState({ phase: "in", session: await loadSession() });
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
