// Log tenants: every tenant the log store has seen (GET
// /distributor/all_user_stats), and a LogQL box showing a tenant's recent
// lines through the store's own query API.
import { useState } from "preact/hooks";
import { DataTable, type Column } from "../components/data-table.tsx";
import { Button, Empty, Loaded, PageHeader, ServerAdminsOnly } from "../components/ui.tsx";
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
}

const num = (label: string): Column => ({ label, class: "num" });
const COLUMNS = ["Tenant", num("Streams"), num("Lines"), num("Volume"), num("Ingestion"), "Last entry", ""];

export function LogTenantsPage() {
  const serverAdmin = useSession().user.isSvcAdmin;
  const topo = useLoad(topology);
  return (
    <section>
      <PageHeader title="Log tenants" description="Tenants the log store has received logs for, and their recent lines." />
      {!serverAdmin ? <ServerAdminsOnly what="This page" /> : <Loaded load={topo}>
        {(t) =>
          t.logs.enabled ? (
            <Tenants store={t.logs} />
          ) : (
            <p class="alert info">The log store is turned off in this Outpost's configuration (<code>logs.enabled: false</code>).</p>
          )
        }
      </Loaded>}
    </section>
  );
}

function Tenants({ store }: { store: Listener }) {
  // read again every 10 s: new tenants and last entries appear without a reload
  const stats = usePolledLoad(() => storeRequest<LogTenantStats[]>(store, "/distributor/all_user_stats"), 10_000);
  const [selected, setSelected] = useState<string>();
  return (
    <>
      <div class="toolbar">
        <p class="muted">From <code>{store.url}</code></p>
        <Button onClick={stats.reload} pending={stats.loading}>Refresh</Button>
      </div>
      <Loaded load={stats} what="The tenant list">
        {(list) =>
          list.length === 0 ? (
            <Empty>No logs yet. Push to <code>{store.url}/svc/api/v1/push</code> with an <code>X-Scope-OrgID</code> header and the tenant appears here.</Empty>
          ) : (
            <DataTable caption="Log tenants" columns={COLUMNS}>
              {list.map((s) => (
                <tr aria-selected={s.userID === selected}>
                  <th scope="row">{s.userID}</th>
                  <td class="num">{fmt.number(s.numStreams)}</td>
                  <td class="num">{fmt.number(s.linesReceived)}</td>
                  <td class="num">{fmt.bytes(s.bytesReceived)}</td>
                  <td class="num">{fmt.bytes(s.ingestionRate)}/s</td>
                  <td title={s.lastEntry ?? ""}>{fmt.ago(s.lastEntry)}</td>
                  <td class="row-actions">
                    <Button onClick={() => setSelected(s.userID)} aria-label={`Query logs of ${s.userID}`}>Query</Button>
                  </td>
                </tr>
              ))}
            </DataTable>
          )
        }
      </Loaded>
      {selected ? <LogQuery key={selected} store={store} tenant={selected} /> : stats.data && stats.data.length > 0 && <p class="muted">Choose a tenant to query its logs.</p>}
    </>
  );
}
