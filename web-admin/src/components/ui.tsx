// The page's building blocks: headings, alerts, loading states, form fields,
// buttons, tables with paging, confirmation dialogs and the copy button.
import type { ButtonHTMLAttributes, ComponentChildren } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { ApiFailure } from "../lib/api.ts";
import type { Load } from "../lib/hooks.ts";

export function PageHeader(props: { title: string; description?: string; children?: ComponentChildren }) {
  return (
    <header class="page-header">
      <div>
        <h1 tabIndex={-1} data-page-title>{props.title}</h1>
        {props.description && <p class="muted">{props.description}</p>}
      </div>
      {props.children && <div class="actions">{props.children}</div>}
    </header>
  );
}

export function ErrorNote(props: { error: Error | undefined; what?: string }) {
  const { error } = props;
  if (!error) return null;
  if (error instanceof ApiFailure && error.missing) {
    return (
      <div class="alert warn" role="alert">
        <strong>Not available on this server.</strong> {props.what ?? "This page"} needs <code>{new URL(error.url, location.href).pathname}</code>, which this
        Outpost does not offer ({error.status}: {error.message}).
      </div>
    );
  }
  if (error instanceof ApiFailure && error.status === 401) {
    return (
      <div class="alert error" role="alert">
        <strong>Authentication failed.</strong> {error.message}
      </div>
    );
  }
  if (error instanceof ApiFailure && error.status === 403) {
    return (
      <div class="alert warn" role="alert">
        <strong>Permission denied.</strong> {error.message}
      </div>
    );
  }
  return (
    <div class="alert error" role="alert">
      <strong>{error instanceof ApiFailure && error.status ? `Error ${error.status}:` : "Error:"}</strong> {error.message}
    </div>
  );
}

export function Loading(props: { label?: string }) {
  return (
    <p class="loading" role="status">
      <span class="spinner" aria-hidden="true" /> {props.label ?? "Loading…"}
    </p>
  );
}

/** loading, error or the content: every request shows one of the three */
export function Loaded<T>(props: { load: Load<T>; what?: string; children: (data: T) => ComponentChildren }) {
  const { load } = props;
  if (load.error && load.data === undefined) return <ErrorNote error={load.error} what={props.what} />;
  if (load.data === undefined) return <Loading />;
  return (
    <>
      {load.error && <ErrorNote error={load.error} what={props.what} />}
      {props.children(load.data)}
    </>
  );
}

type ButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, "type"> & { kind?: "primary" | "danger" | "plain"; pending?: boolean; type?: "button" | "submit"; disabled?: boolean };

export function Button({ kind = "plain", pending, children, disabled, type = "button", ...rest }: ButtonProps) {
  return (
    <button {...rest} type={type} class={`btn ${kind} ${rest.class ?? ""}`} disabled={disabled || pending} aria-busy={pending || undefined}>
      {pending && <span class="spinner small" aria-hidden="true" />}
      {children}
    </button>
  );
}

export function Field(props: { label: string; hint?: ComponentChildren; children: (id: string) => ComponentChildren; wide?: boolean }) {
  const id = useId();
  return (
    <div class={`field ${props.wide ? "wide" : ""}`}>
      <label for={id}>{props.label}</label>
      {props.children(id)}
      {props.hint && <p class="hint">{props.hint}</p>}
    </div>
  );
}

export function TextField(props: {
  label: string;
  value: string;
  onInput: (v: string) => void;
  type?: string;
  placeholder?: string;
  required?: boolean;
  hint?: ComponentChildren;
  autoComplete?: string;
  autoFocus?: boolean;
  disabled?: boolean;
  name?: string;
}) {
  return (
    <Field label={props.label} hint={props.hint}>
      {(id) => (
        <input
          id={id}
          name={props.name}
          type={(props.type ?? "text") as "text"}
          value={props.value}
          placeholder={props.placeholder}
          required={props.required}
          autoComplete={props.autoComplete}
          autoFocus={props.autoFocus}
          disabled={props.disabled}
          onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
        />
      )}
    </Field>
  );
}

export function SelectField(props: { label: string; value: string; onChange: (v: string) => void; options: readonly (string | [string, string])[]; hint?: string; name?: string }) {
  return (
    <Field label={props.label} hint={props.hint}>
      {(id) => (
        <select id={id} name={props.name} value={props.value} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}>
          {props.options.map((o) => {
            const [value, label] = typeof o === "string" ? [o, o] : o;
            return <option value={value}>{label}</option>;
          })}
        </select>
      )}
    </Field>
  );
}

/** a modal dialog (native <dialog>: focus is kept inside, Escape closes it) */
export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog ref={ref} class={`dialog ${props.wide ? "wide" : ""}`} aria-labelledby={titleId} onCancel={(e) => { e.preventDefault(); props.onClose(); }}>
      <div class="dialog-head">
        <h2 id={titleId}>{props.title}</h2>
        <button type="button" class="icon-btn" aria-label="Close" onClick={props.onClose}>×</button>
      </div>
      {props.children}
    </dialog>
  );
}

/** asks before a destructive action; the action's error is shown in the dialog */
export function Confirm(props: { title: string; body: ComponentChildren; confirmLabel: string; onConfirm: () => Promise<unknown>; onClose: () => void }) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<Error>();
  const go = async () => {
    setPending(true);
    setError(undefined);
    try {
      await props.onConfirm();
      props.onClose();
    } catch (err) {
      setError(err as Error);
    } finally {
      setPending(false);
    }
  };
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <div class="dialog-body">{props.body}</div>
      <ErrorNote error={error} />
      <div class="dialog-foot">
        <Button onClick={props.onClose}>Cancel</Button>
        <Button kind="danger" pending={pending} onClick={go} autoFocus>
          {props.confirmLabel}
        </Button>
      </div>
    </Dialog>
  );
}

export function Pager(props: { page: number; perPage: number; total: number; onPage: (p: number) => void }) {
  const pages = Math.max(1, Math.ceil(props.total / props.perPage));
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <Button disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>Previous</Button>
      <span>Page {props.page} of {pages}</span>
      <Button disabled={props.page >= pages} onClick={() => props.onPage(props.page + 1)}>Next</Button>
    </nav>
  );
}

export function CopyButton(props: { text: string; label?: string }) {
  const [copied, setCopied] = useState<"" | "ok" | "failed">("");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text);
      setCopied("ok");
    } catch {
      setCopied("failed");
    }
  };
  return (
    <Button onClick={copy} aria-live="polite">
      {copied === "ok" ? "Copied" : copied === "failed" ? "Select and copy by hand" : props.label ?? "Copy"}
    </Button>
  );
}

export function Empty(props: { children: ComponentChildren }) {
  return <p class="empty">{props.children}</p>;
}

export function Badge(props: { tone?: "ok" | "bad" | "warn" | "neutral"; children: ComponentChildren }) {
  return <span class={`badge ${props.tone ?? "neutral"}`}>{props.children}</span>;
}

export function SearchBox(props: { label: string; value: string; onInput: (v: string) => void }) {
  const id = useId();
  return (
    <div class="search">
      <label for={id} class="sr-only">{props.label}</label>
      <input id={id} type="search" placeholder={props.label} value={props.value} onInput={(e) => props.onInput((e.target as HTMLInputElement).value)} />
    </div>
  );
}

/** the stores' tenant pages read every tenant's data: server administrators only */
export function ServerAdminsOnly(props: { what: string }) {
  return (
    <p class="alert info">
      {props.what} shows every tenant's data, so it is for server administrators. Ask one, or use the store's API with your tenant's credentials.
    </p>
  );
}
