// Two-factor authentication (TOTP) of the signed-in user: GET /api/user/2fa,
// POST /api/user/2fa/enrol (a QR code and the secret as text, pending), POST
// /api/user/2fa/confirm (the first code; the ten recovery codes are shown once,
// kept in this component's state only), DELETE /api/user/2fa (with the
// password). Shown on the password page, and alone after sign-in while an
// administrator must enrol (security.totp_required_for_admins).
import { useState } from "preact/hooks";
import { ActionForm } from "../components/form-dialog.tsx";
import { Button, CopyButton, ErrorNote, Loaded, TextField } from "../components/ui.tsx";
import { api, explainLockOut } from "../lib/api.ts";
import { useAction, useLoad } from "../lib/hooks.ts";

interface Status {
  enabled: boolean;
  recoveryCodesLeft: number;
  enrolmentRequired: boolean;
}

interface Enrolment {
  secret: string;
  otpauthUrl: string;
  qrSvg: string;
}

export function TwoFactorSection(props: { onEnabled?: () => void }) {
  const [version, setVersion] = useState(0);
  const status = useLoad(() => api<Status>("/api/user/2fa"), [version]);
  const reload = () => setVersion((v) => v + 1);
  return (
    <section class="card" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Two-factor authentication</h2>
      <Loaded load={status} what="two-factor authentication">
        {(s) => (s.enabled ? <Enabled status={s} onChanged={reload} /> : <Enrol onDone={() => { reload(); props.onEnabled?.(); }} />)}
      </Loaded>
    </section>
  );
}

function Enrol(props: { onDone: () => void }) {
  const [enrolment, setEnrolment] = useState<Enrolment>();
  const [code, setCode] = useState("");
  // shown once: only here, until Done
  const [recoveryCodes, setRecoveryCodes] = useState<string[]>();
  // the current password first: a borrowed session alone cannot put a factor on the account
  const [password, setPassword] = useState("");
  const start = useAction(async () => {
    const e = await api<Enrolment>("/api/user/2fa/enrol", { method: "POST", body: { password } }).catch((err: unknown) => {
      throw explainLockOut(err);
    });
    setPassword("");
    setEnrolment(e);
  });
  const confirm = useAction(async () => {
    const r = await api<{ recoveryCodes: string[] }>("/api/user/2fa/confirm", { method: "POST", body: { code } }).catch((err: unknown) => {
      throw explainLockOut(err);
    });
    setEnrolment(undefined);
    setRecoveryCodes(r.recoveryCodes);
  });

  if (recoveryCodes) {
    const text = recoveryCodes.join("\n");
    return (
      <div>
        <p class="alert ok" role="status">Two-factor authentication is on.</p>
        <p class="alert warn" role="alert">
          <strong>Keep these recovery codes somewhere safe: you will not see them again.</strong> Each signs you in once when the authenticator app is not at hand.
        </p>
        <ul class="recovery-codes" aria-label="Recovery codes">
          {recoveryCodes.map((c) => <li><code>{c}</code></li>)}
        </ul>
        <div class="form-actions">
          <CopyButton text={text} label="Copy recovery codes" />
          <Button kind="primary" onClick={props.onDone}>Done</Button>
        </div>
      </div>
    );
  }
  if (!enrolment) {
    return (
      <div>
        <p>Off. With it on, signing in on this page asks for a six-digit code from an authenticator app after the password, and HTTP basic authentication with your password is refused: scripts use service account tokens.</p>
        <ActionForm action={start} submitLabel="Set up two-factor authentication">
          <TextField label="Your password (to set up two-factor authentication)" type="password" name="enrolPassword" value={password} onInput={setPassword} autoComplete="current-password" required />
        </ActionForm>
      </div>
    );
  }
  return (
    <ActionForm action={confirm} submitLabel="Turn on" head={<p>Scan the QR code with an authenticator app, or type the key into it, then enter the code it shows.</p>}>
      <div class="qr-enrol">
        <QrCode svg={enrolment.qrSvg} />
        <div>
          <p class="hint">Key (time-based, SHA-1, six digits, 30 seconds)</p>
          <div class="secret">
            <code data-testid="totp-secret">{enrolment.secret}</code>
            <CopyButton text={enrolment.secret} label="Copy key" />
          </div>
        </div>
      </div>
      <TextField label="Code from the app" name="code" value={code} onInput={setCode} autoComplete="one-time-code" required />
    </ActionForm>
  );
}

function Enabled(props: { status: Status; onChanged: () => void }) {
  const [password, setPassword] = useState("");
  const disable = useAction(async () => {
    await api("/api/user/2fa", { method: "DELETE", body: { password } }).catch((err: unknown) => {
      throw explainLockOut(err);
    });
    setPassword("");
    props.onChanged();
  });
  return (
    <ActionForm
      action={disable}
      submitLabel="Turn off two-factor authentication"
      head={<p>On: signing in asks for a code from your authenticator app. {props.status.recoveryCodesLeft} of 10 recovery codes left.</p>}
    >
      <TextField label="Current password" type="password" name="disablePassword" value={password} onInput={setPassword} autoComplete="current-password" required />
    </ActionForm>
  );
}

/** the server's QR code (an SVG of one path) drawn as elements: no markup from a string, no data: URI (the page's CSP) */
function QrCode(props: { svg: string }) {
  const viewBox = /viewBox="([\d .]+)"/.exec(props.svg)?.[1] ?? "0 0 100 100";
  const d = /<path[^>]*\sd="([MmHhVvZz\d.,\s-]+)"/.exec(props.svg)?.[1] ?? "";
  const size = viewBox.split(" ")[2] ?? "100";
  return (
    <svg class="qr" viewBox={viewBox} role="img" aria-label="QR code to scan with an authenticator app">
      <rect fill="white" width={size} height={size} />
      <path fill="black" d={d} />
    </svg>
  );
}
