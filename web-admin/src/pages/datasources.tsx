// Data sources of the current organization: GET /api/datasources, with the
// create/edit form (datasources-form.tsx) for the two built-in types.
import { useState } from "preact/hooks";
import { DataTable } from "../components/data-table.tsx";
import { Badge, Button, Empty, Loaded, PageHeader } from "../components/ui.tsx";
import { api } from "../lib/api.ts";
import { can, useSession } from "../lib/session.ts";
import { useLoad } from "../lib/hooks.ts";
import { DataSourceDialog } from "./datasources-form.tsx";

interface DataSourceItem {
  id: number;
  uid: string;
  name: string;
  type: string;
  typeName?: string;
  url: string;
  isDefault: boolean;
  readOnly: boolean;
  basicAuth?: boolean;
}

export function DataSourcesPage() {
  const session = useSession();
  const load = useLoad(() => api<DataSourceItem[]>("/api/datasources"));
  // undefined: closed; "": a new data source; otherwise the uid being edited
  const [editing, setEditing] = useState<string | undefined>();

  return (
    <section>
      <PageHeader title="Data sources" description="Where dashboards and alert rules read logs and metrics: the bundled stores or your own Loki and Prometheus.">
        {can(session, "datasources:create") && <Button kind="primary" onClick={() => setEditing("")}>New data source</Button>}
      </PageHeader>
      <Loaded load={load} what="The data sources page">
        {(list) =>
          list.length === 0 ? (
            <Empty>No data sources yet. Add one for the bundled log store and one for the metrics store.</Empty>
          ) : (
            <DataTable caption="Data sources" columns={["Name", "Type", "URL", ""]}>
              {list.map((d) => (
                <tr key={d.uid}>
                  <td>
                    {d.name} {d.isDefault && <Badge tone="ok">default</Badge>} {d.readOnly && <Badge tone="neutral">read-only</Badge>}
                  </td>
                  <td>
                    {d.type}
                    {d.typeName && d.typeName !== d.type && <span class="muted"> ({d.typeName})</span>}
                  </td>
                  <td>
                    <code>{d.url || "–"}</code>
                  </td>
                  <td class="row-actions">
                    <Button onClick={() => setEditing(d.uid)}>Edit</Button>
                  </td>
                </tr>
              ))}
            </DataTable>
          )
        }
      </Loaded>
      {editing !== undefined && (
        <DataSourceDialog
          uid={editing || undefined}
          onClose={() => setEditing(undefined)}
          onChanged={load.reload}
          onDeleted={() => {
            setEditing(undefined);
            load.reload();
          }}
        />
      )}
    </section>
  );
}
