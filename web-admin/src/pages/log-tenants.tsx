// Log tenants: every tenant the log store has seen (GET
// /distributor/all_user_stats) with the access policies that reach it, and a
// LogQL box showing a tenant's recent lines through the store's own query
// API. In tokens mode the store wants credentials: the page asks for the
// metrics admin token, which both stores accept for every tenant.
import { useEffect, useState } from "preact/hooks";
import { AdminTokenForm, ForgetAdminToken, useAdminToken } from "../components/admin-token.tsx";
import { DataTable, type Column } from "../components/data-table.tsx";
import { AuthModeNote, TenantPolicies } from "../components/tenant-policies.tsx";
import { Button, Empty, Loaded, PageHeader, ServerAdminsOnly } from "../components/ui.tsx";
import { loadPolicies } from "../lib/access.ts";
import { ApiFailure } from "../lib/api.ts";
import * as fmt from "../lib/format.ts";
import { useLoad, usePolledLoad } from "../lib/hooks.ts";
import { useSession } from "../lib/session.ts";
import { storeRequest, topology, type Listener } from "../lib/stores.ts";
import { LogQuery } from "./log-query.tsx";

export interface LogTenantStats {
  userID: string;
  numStreams: number;
  ingestionRate: number;
  linesRate?: number;
  bytesReceived: number;
  linesReceived: number;
  lastEntry: string | null;
  /** lines and bytes that came over OTLP (/otlp/v1/logs) since the store started */
  otlpLinesReceived?: number;
  otlpBytesReceived?: number;
  /** the oldest entry held, and retention's settings and last pass */
  oldestEntry?: string | null;
  retentionPeriod?: string;
  lastRetentionRun?: string | null;
}

const num = (label: string): Column => ({ label, class: "num" });
const COLUMNS = ["Tenant", num("Streams"), num("Lines"), num("Volume"), num("Ingestion"), num("Over OTLP"), "Last entry", "Oldest entry", "Retention", "Access policies", ""];

const allUserStats = (store: Listener) => storeRequest<LogTenantStats[]>(store, "/distributor/all_user_stats");

export function LogTenantsPage() {
  const serverAdmin = useSession().user.isSvcAdmin;
  const topo = useLoad(topology);
  const token = useAdminToken();
  const tokensMode = topo.data?.logs.tokens ?? false;
  return (
    <section>
      <PageHeader title="Log tenants" description="Tenants the log store has received logs for, and their recent lines.">
        {tokensMode && token.has && <ForgetAdminToken onForget={token.forget} />}
      </PageHeader>
      {!serverAdmin ? <ServerAdminsOnly what="This page" /> : <Loaded load={topo}>
        {(t) =>
          !t.logs.enabled ? (
            <p class="alert info">The log store is turned off in this Outpost's configuration (<code>logs.enabled: false</code>).</p>
          ) : t.logs.tokens && !token.has ? (
            <AdminTokenForm check={() => allUserStats(t.logs)} onAccepted={token.accepted}>
              The log store (<code>{t.logs.url}</code>) wants access policy tokens (<code>logs.auth.type: tokens</code>). This page reads it with the
              metrics store's admin token (<code>metrics.admin_token</code>, printed at first start), which both stores accept for every tenant.
            </AdminTokenForm>
          ) : (
            <Tenants store={t.logs} onTokenRejected={token.forget} />
          )
        }
      </Loaded>}
    </section>
  );
}

function Tenants({ store, onTokenRejected }: { store: Listener; onTokenRejected: () => void }) {
  // read again every 10 s: new tenants and last entries appear without a reload
  const stats = usePolledLoad(() => allUserStats(store), 10_000);
  const policies = useLoad(loadPolicies);
  const [selected, setSelected] = useState<string>();
  useEffect(() => {
    if (store.tokens && stats.error instanceof ApiFailure && stats.error.status === 401) onTokenRejected();
  }, [stats.error]);
  return (
    <>
      <div class="toolbar">
        <p class="muted">From <code>{store.url}</code></p>
        <Button onClick={stats.reload} pending={stats.loading}>Refresh</Button>
      </div>
      <AuthModeNote store={store} />
      <Loaded load={stats} what="The tenant list">
        {(list) =>
          list.length === 0 ? (
            <Empty>
              No logs yet. Push to <code>{store.url}/svc/api/v1/push</code> (or send OpenTelemetry logs to <code>{store.url}/otlp/v1/logs</code>){" "}
              {store.tokens ? <>with basic auth (the tenant as user name, an access policy token as password)</> : <>with an <code>X-Scope-OrgID</code> header</>}{" "}
              and the tenant appears here.
            </Empty>
          ) : (
            <>
            <RetentionNote lastRun={list[0]?.lastRetentionRun} />
            <DataTable caption="Log tenants" columns={COLUMNS}>
              {list.map((s) => (
                <tr aria-selected={s.userID === selected}>
                  <th scope="row">{s.userID}</th>
                  <td class="num">{fmt.number(s.numStreams)}</td>
                  <td class="num">{fmt.number(s.linesReceived)}</td>
                  <td class="num">{fmt.bytes(s.bytesReceived)}</td>
                  <td class="num">{fmt.bytes(s.ingestionRate)}/s</td>
                  <td class="num" title="lines and bytes received on /otlp/v1/logs since the log store started">
                    {fmt.number(s.otlpLinesReceived ?? 0)} {s.otlpLinesReceived === 1 ? "line" : "lines"}, {fmt.bytes(s.otlpBytesReceived ?? 0)}
                  </td>
                  <td title={s.lastEntry ?? ""}>{fmt.ago(s.lastEntry)}</td>
                  <td title={s.oldestEntry ?? ""}>{fmt.ago(s.oldestEntry)}</td>
                  <td>{fmt.retention(s.retentionPeriod)}</td>
                  <td><TenantPolicies policies={policies} tenant={s.userID} /></td>
                  <td class="row-actions">
                    <Button onClick={() => setSelected(s.userID)} aria-label={`Query logs of ${s.userID}`}>Query</Button>
                  </td>
                </tr>
              ))}
            </DataTable>
            </>
          )
        }
      </Loaded>
      {selected ? <LogQuery key={selected} store={store} tenant={selected} /> : stats.data && stats.data.length > 0 && <p class="muted">Choose a tenant to query its logs.</p>}
    </>
  );
}


function RetentionNote({ lastRun }: { lastRun: string | null | undefined }) {
  return (
    <p class="muted" title={lastRun ?? ""}>
      Retention deletes chunks past each tenant's period; {lastRun ? <>last applied {fmt.ago(lastRun)}.</> : <>it has not run since the log store started.</>}
    </p>
  );
}
