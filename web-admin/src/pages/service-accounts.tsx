// Service accounts of the current organization: GET /api/serviceaccounts/search
// (search and paging), create, change role, disable/enable and delete them;
// their tokens are in service-accounts-tokens.tsx.
import { useEffect, useState } from "preact/hooks";
import { DataTable } from "../components/data-table.tsx";
import { FormDialog } from "../components/form-dialog.tsx";
import { RoleSelect } from "../components/role-select.tsx";
import { Badge, Button, Confirm, Empty, ErrorNote, Loaded, PageHeader, Pager, SearchBox, SelectField, TextField } from "../components/ui.tsx";
import { api, query } from "../lib/api.ts";
import { can, useSession } from "../lib/session.ts";
import { useAction, useLoad, usePageFallback } from "../lib/hooks.ts";
import { TokensDialog } from "./service-accounts-tokens.tsx";

export interface ServiceAccount {
  id: number;
  uid?: string;
  name: string;
  login: string;
  orgId: number;
  isDisabled: boolean;
  role: string;
  tokens: number;
  avatarUrl?: string;
  accessControl?: Record<string, boolean>;
}

interface SearchResult {
  totalCount: number;
  serviceAccounts: ServiceAccount[];
  page: number;
  perPage: number;
}

const PER_PAGE = 10;
const ROLES = ["Viewer", "Editor", "Admin", "None"] as const;

/** what the caller may do to one account (search results say it; absent means the server decides) */
const may = (sa: ServiceAccount, action: "write" | "delete") => sa.accessControl?.[`serviceaccounts:${action}`] !== false;

type Pending = { kind: "create" } | { kind: "tokens"; sa: ServiceAccount } | { kind: "disable"; sa: ServiceAccount } | { kind: "delete"; sa: ServiceAccount };

export function ServiceAccountsPage() {
  const session = useSession();
  const [search, setSearch] = useState("");
  const [term, setTerm] = useState("");
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<Pending | undefined>();
  const [notice, setNotice] = useState("");

  // the search runs ~300 ms after the last keystroke
  useEffect(() => {
    const t = setTimeout(() => {
      setTerm(search.trim());
      setPage(1);
    }, 300);
    return () => clearTimeout(t);
  }, [search]);

  const load = useLoad(() => api<SearchResult>(`/api/serviceaccounts/search${query({ perpage: PER_PAGE, page, query: term })}`), [page, term]);

  usePageFallback(load.data?.serviceAccounts.length, load.data?.totalCount, page, PER_PAGE, setPage);

  const change = useAction(async (sa: ServiceAccount, body: { role?: string; isDisabled?: boolean }) => {
    setNotice("");
    await api(`/api/serviceaccounts/${sa.id}`, { method: "PATCH", body });
    setNotice(body.role ? `${sa.name} is now ${body.role}.` : `${sa.name} is ${body.isDisabled ? "disabled" : "enabled"}.`);
    load.reload();
  });

  return (
    <section>
      <PageHeader title="Service accounts" description="Accounts for scripts and other services of this organization. They sign in with tokens, not passwords." />
      <div class="toolbar">
        <SearchBox label="Search service accounts" value={search} onInput={setSearch} />
        {can(session, "serviceaccounts:create") && <Button kind="primary" onClick={() => setOpen({ kind: "create" })}>New service account</Button>}
      </div>
      {notice && <p class="alert ok" role="status">{notice}</p>}
      <ErrorNote error={change.error} />
      <Loaded load={load} what="The service accounts page">
        {(data) =>
          data.serviceAccounts.length === 0 ? (
            <Empty>{term ? `No service account matches “${term}”.` : "No service accounts yet."}</Empty>
          ) : (
            <>
              <DataTable caption="Service accounts" columns={["Name", "Login", "Role", { label: "Tokens", class: "num" }, "Status", ""]}>
                {data.serviceAccounts.map((sa) => (
                  <tr key={sa.id}>
                    <td>{sa.name}</td>
                    <td class="muted">{sa.login}</td>
                    <td>
                      <RoleSelect
                        label={`Role of ${sa.name}`}
                        value={sa.role}
                        roles={ROLES}
                        disabled={change.pending || !may(sa, "write")}
                        onChange={(role) => void change.run(sa, { role })}
                      />
                    </td>
                    <td class="num">{sa.tokens}</td>
                    <td>{sa.isDisabled ? <Badge tone="bad">disabled</Badge> : <Badge tone="ok">enabled</Badge>}</td>
                    <td class="row-actions">
                      <Button onClick={() => setOpen({ kind: "tokens", sa })}>Tokens</Button>
                      {sa.isDisabled ? (
                        <Button disabled={change.pending || !may(sa, "write")} onClick={() => void change.run(sa, { isDisabled: false })}>Enable</Button>
                      ) : (
                        <Button disabled={!may(sa, "write")} onClick={() => setOpen({ kind: "disable", sa })}>Disable</Button>
                      )}
                      <Button kind="danger" disabled={!may(sa, "delete")} onClick={() => setOpen({ kind: "delete", sa })}>Delete</Button>
                    </td>
                  </tr>
                ))}
              </DataTable>
              <Pager page={page} perPage={PER_PAGE} total={data.totalCount} onPage={setPage} />
            </>
          )
        }
      </Loaded>

      {open?.kind === "create" && (
        <CreateDialog
          onClose={() => setOpen(undefined)}
          onCreated={(sa) => {
            setOpen(undefined);
            setNotice(`Service account ${sa.name} created (login ${sa.login}). Add a token to use it.`);
            load.reload();
          }}
        />
      )}
      {open?.kind === "tokens" && <TokensDialog account={open.sa} onClose={() => setOpen(undefined)} onChanged={load.reload} />}
      {open?.kind === "disable" && (
        <Confirm
          title={`Disable ${open.sa.name}?`}
          body={<p>Its tokens stop working until the account is enabled again. The tokens are kept.</p>}
          confirmLabel="Disable service account"
          onConfirm={async () => {
            await api(`/api/serviceaccounts/${open.sa.id}`, { method: "PATCH", body: { isDisabled: true } });
            setNotice(`${open.sa.name} is disabled.`);
            load.reload();
          }}
          onClose={() => setOpen(undefined)}
        />
      )}
      {open?.kind === "delete" && (
        <Confirm
          title={`Delete ${open.sa.name}?`}
          body={<p>{open.sa.tokens ? `The service account and its ${open.sa.tokens === 1 ? "token are" : `${open.sa.tokens} tokens are`} deleted for good; scripts using them stop working.` : "The service account is deleted for good."}</p>}
          confirmLabel="Delete service account"
          onConfirm={async () => {
            await api(`/api/serviceaccounts/${open.sa.id}`, { method: "DELETE" });
            setNotice(`Service account ${open.sa.name} deleted.`);
            load.reload();
          }}
          onClose={() => setOpen(undefined)}
        />
      )}
    </section>
  );
}

function CreateDialog(props: { onClose: () => void; onCreated: (sa: ServiceAccount) => void }) {
  const [name, setName] = useState("");
  const [role, setRole] = useState("Viewer");
  const create = useAction(async () => {
    const sa = await api<ServiceAccount>("/api/serviceaccounts", { method: "POST", body: { name: name.trim(), role } });
    props.onCreated(sa);
  });
  return (
    <FormDialog title="New service account" onClose={props.onClose} action={create} submitLabel="Create">
      <TextField label="Name" name="name" value={name} onInput={setName} required autoFocus autoComplete="off" />
      <SelectField label="Role" name="role" value={role} onChange={setRole} options={ROLES} hint="The organization role its tokens act with." />
    </FormDialog>
  );
}
