// The metrics store's admin token, asked for once and kept only for this
// browser tab's session (sessionStorage): the tenant admin API needs it, and
// in tokens mode both stores accept it as reaching every tenant, so the
// store pages send it with their reads (lib/stores.ts).
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { useAction } from "../lib/hooks.ts";
import { adminToken } from "../lib/stores.ts";
import { ActionForm } from "./form-dialog.tsx";
import { Button, TextField } from "./ui.tsx";

/** whether this tab holds the token, and the two ways that changes */
export function useAdminToken() {
  const [has, setHas] = useState(adminToken.get() !== "");
  return {
    has,
    accepted: () => setHas(true),
    forget: () => {
      adminToken.clear();
      setHas(false);
    },
  };
}

export function ForgetAdminToken(props: { onForget: () => void }) {
  return <Button onClick={props.onForget}>Forget admin token</Button>;
}

/**
 * Asks for the token; `check` is a request that needs it (the token is kept
 * only when it succeeds). `children`: what the token is for on this page.
 */
export function AdminTokenForm(props: { check: () => Promise<unknown>; onAccepted: () => void; children: ComponentChildren }) {
  const [token, setToken] = useState("");
  const check = useAction(async () => {
    adminToken.set(token);
    try {
      await props.check();
    } catch (err) {
      adminToken.clear();
      throw err;
    }
    props.onAccepted();
  });
  return (
    <ActionForm
      class="card narrow"
      action={check}
      submitLabel="Use token"
      head={
        <>
          <h2>Admin API token</h2>
          <p>{props.children} It is kept in this browser tab only and forgotten when the tab closes.</p>
          <p class="hint">
            Lost it? Only its hash is stored. Set <code>metrics.admin_token</code> in the configuration file (or <code>--metrics-admin-token</code>) and
            restart: the configured token replaces the stored one.
          </p>
        </>
      }
    >
      <TextField label="Admin API token" name="admin_token" type="password" value={token} onInput={setToken} required autoComplete="off" autoFocus />
    </ActionForm>
  );
}
