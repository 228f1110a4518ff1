// Sign in with a user name and password: POST /login sets the session cookie.
// Wrong credentials and lock-out are shown with the server's own message. A user
// with a second factor is then asked for a code: POST /login/2fa completes the
// sign-in POST /login left pending. With an OpenID Connect provider configured
// (auth.generic_oauth) a "Sign in with <name>" button leads to it; a refused
// OAuth sign-in comes back to /login?error=<message>, shown here.
import { useEffect, useState } from "preact/hooks";
import { Button, ErrorNote, TextField } from "../components/ui.tsx";
import { api, ApiFailure, explainLockOut, LOCKED_OUT } from "../lib/api.ts";
import { useAction } from "../lib/hooks.ts";

export function LoginPage(props: { notice?: string; onSignedIn: () => Promise<void> }) {
  const [user, setUser] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  // the password was right and a second factor's code is needed
  const [codeStep, setCodeStep] = useState(false);
  const [options, setOptions] = useState<LoginOptions | undefined>(undefined);
  // the OAuth callback's refusal (/login?error=...): the server's message, as text
  const [oauthError] = useState(() => new URLSearchParams(location.search).get("error") ?? "");
  useEffect(() => {
    api<LoginOptions>("/api/login/options").then((o) => {
      const provider = o.oauth?.generic_oauth;
      // auto_login: straight to the provider, unless a refusal is shown or ?disableAutoLogin asks for the form
      if (provider?.autoLogin && !oauthError && !new URLSearchParams(location.search).has("disableAutoLogin")) location.assign(provider.url);
      setOptions(o);
    }, () => setOptions(undefined));
  }, []);
  const provider = options?.oauth?.generic_oauth;
  const signIn = useAction(async () => {
    try {
      if (codeStep) await api("/login/2fa", { method: "POST", body: { code } });
      else await api("/login", { method: "POST", body: { user, password } });
    } catch (err) {
      if (err instanceof ApiFailure && err.messageId === SECOND_FACTOR_REQUIRED) {
        setCodeStep(true);
        return;
      }
      if (err instanceof ApiFailure && err.messageId === SECOND_FACTOR_EXPIRED) {
        setCodeStep(false);
        setCode("");
      }
      throw explain(err);
    }
    await props.onSignedIn();
  });
  return (
    <main class="login">
      <form
        class="login-card"
        aria-labelledby="login-title"
        onSubmit={(e) => {
          e.preventDefault();
          void signIn.run();
        }}
      >
        <div class="brand large"><Logo /> Outpost</div>
        <h1 id="login-title">Sign in</h1>
        <p class="muted">Dashboard API, log store and metrics store in one executable.</p>
        {props.notice && !signIn.error && <p class="alert info" role="status">{props.notice}</p>}
        <ErrorNote error={signIn.error} />
        {oauthError && !signIn.error && <div class="alert error" role="alert"><strong>Sign-in refused.</strong> {oauthError}</div>}
        {codeStep ? (
          <>
            <p class="alert info" role="status">Two-factor authentication is on for {user}.</p>
            <TextField
              label="Authentication code"
              name="code"
              value={code}
              onInput={setCode}
              autoComplete="one-time-code"
              required
              autoFocus
              hint="The six digits your authenticator app shows, or one of your recovery codes."
            />
            <Button kind="primary" type="submit" pending={signIn.pending} class="block">Verify</Button>
            <Button class="block" onClick={() => { setCodeStep(false); setCode(""); setPassword(""); signIn.clearError(); }}>Back</Button>
          </>
        ) : (
          <>
            <TextField label="User name or email" name="user" value={user} onInput={setUser} autoComplete="username" required autoFocus />
            <TextField label="Password" name="password" type="password" value={password} onInput={setPassword} autoComplete="current-password" required />
            <Button kind="primary" type="submit" pending={signIn.pending} class="block">Sign in</Button>
            {provider && (
              <>
                <p class="muted login-or">or</p>
                {/* target _top: a full navigation to the server (the page's router would keep it in the page) */}
                <a class="btn block" href={provider.url} target="_top">Sign in with {provider.name}</a>
              </>
            )}
          </>
        )}
        <p class="hint">First start? The user is <code>admin</code> with the password <code>admin</code>; you will be asked to change it.</p>
      </form>
    </main>
  );
}

export function Logo() {
  return (
    <svg class="logo" viewBox="0 0 32 32" aria-hidden="true">
      <rect width="32" height="32" rx="7" fill="#1f4e79" />
      <path d="M6 23 13 11l5 8 3-5 5 9z" fill="#f5a623" />
    </svg>
  );
}

/** GET /api/login/options: what the sign-in page offers */
interface LoginOptions {
  passwordLogin: boolean;
  oauth?: { generic_oauth?: { name: string; url: string; autoLogin: boolean } };
}

const SECOND_FACTOR_REQUIRED = "login.second-factor-required";
const SECOND_FACTOR_EXPIRED = "login.second-factor-expired";

/** the server answers both with "Invalid username or password"; its messageId tells them apart */
function explain(err: unknown): unknown {
  if (!(err instanceof ApiFailure)) return err;
  if (err.messageId === LOCKED_OUT) return explainLockOut(err);
  if (err.messageId === SECOND_FACTOR_EXPIRED) return new ApiFailure(err.status, "The sign-in took too long: enter the password again.", err.url, err.messageId);
  if (err.messageId === "second-factor.invalid-code") return new ApiFailure(err.status, "Wrong code. Check the authenticator app's clock.", err.url, err.messageId);
  if (err.messageId === "password-auth.failed") {
    return new ApiFailure(err.status, "Wrong user name or password.", err.url, err.messageId);
  }
  return err;
}
