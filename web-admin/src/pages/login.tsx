// Sign in with a user name and password: POST /login sets the session cookie.
// Wrong credentials and lock-out are shown with the server's own message.
import { useState } from "preact/hooks";
import { Button, ErrorNote, TextField } from "../components/ui.tsx";
import { api, ApiFailure, explainLockOut, LOCKED_OUT } from "../lib/api.ts";
import { useAction } from "../lib/hooks.ts";

export function LoginPage(props: { notice?: string; onSignedIn: () => Promise<void> }) {
  const [user, setUser] = useState("");
  const [password, setPassword] = useState("");
  const signIn = useAction(async () => {
    try {
      await api("/login", { method: "POST", body: { user, password } });
    } catch (err) {
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
        <TextField label="User name or email" name="user" value={user} onInput={setUser} autoComplete="username" required autoFocus />
        <TextField label="Password" name="password" type="password" value={password} onInput={setPassword} autoComplete="current-password" required />
        <Button kind="primary" type="submit" pending={signIn.pending} class="block">Sign in</Button>
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

/** the server answers both with "Invalid username or password"; its messageId tells them apart */
function explain(err: unknown): unknown {
  if (!(err instanceof ApiFailure)) return err;
  if (err.messageId === LOCKED_OUT) return explainLockOut(err);
  if (err.messageId === "password-auth.failed") {
    return new ApiFailure(err.status, "Wrong user name or password.", err.url, err.messageId);
  }
  return err;
}
