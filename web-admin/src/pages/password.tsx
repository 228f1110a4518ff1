// Change the signed-in user's password: PUT /api/user/password; and the
// second factor (pages/two-factor.tsx).
import { useState } from "preact/hooks";
import { ActionForm } from "../components/form-dialog.tsx";
import { PageHeader, TextField } from "../components/ui.tsx";
import { api, explainLockOut } from "../lib/api.ts";
import { useAction } from "../lib/hooks.ts";
import { useSession } from "../lib/session.ts";
import { TwoFactorSection } from "./two-factor.tsx";

export function PasswordPage() {
  const session = useSession();
  const [oldPassword, setOld] = useState("");
  const [newPassword, setNew] = useState("");
  const [confirm, setConfirm] = useState("");
  const [done, setDone] = useState(false);
  const change = useAction(async () => {
    setDone(false);
    if (newPassword !== confirm) throw new Error("the new password and its confirmation differ");
    // wrong current passwords count as failed sign-ins: the account can be locked out
    await api("/api/user/password", { method: "PUT", body: { oldPassword, newPassword } }).catch((err: unknown) => {
      throw explainLockOut(err);
    });
    setOld("");
    setNew("");
    setConfirm("");
    setDone(true);
    await session.refresh();
  });
  return (
    <section class="narrow">
      <PageHeader title="Change password" description={`For ${session.user.login}. This session stays signed in; the user's other sessions end.`} />
      {session.settings.outpost?.adminPasswordIsDefault && (
        <p class="alert warn">The <code>admin</code> user still has the default password <code>admin</code>. Choose a new one.</p>
      )}
      {done && <p class="alert ok" role="status">Password changed.</p>}
      <ActionForm class="card" action={change} submitLabel="Change password">
        <TextField label="Current password" type="password" value={oldPassword} onInput={setOld} autoComplete="current-password" required name="oldPassword" />
        <TextField label="New password" type="password" value={newPassword} onInput={setNew} autoComplete="new-password" required name="newPassword" hint="At least 4 characters." />
        <TextField label="Confirm new password" type="password" value={confirm} onInput={setConfirm} autoComplete="new-password" required name="confirmPassword" />
      </ActionForm>
      <TwoFactorSection />
    </section>
  );
}
