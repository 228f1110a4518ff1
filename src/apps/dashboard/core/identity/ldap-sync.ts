// The real product's LDAP active sync (Enterprise's [auth.ldap] active_sync_enabled
// and sync_cron): at each time the cron expression names (croner: 5 fields as
// the real product's, 6 with seconds first, or @hourly, @daily...), every
// enabled LDAP user is checked against the directory (ldap.ts syncAll): one
// no longer found, or in no mapped group, is disabled and its sessions end
// (so a page session of a user removed from the directory ends within one
// period) — unless the run would disable every user it checked (at least 2),
// or more than half of them (more than 10), when it changes nothing and says
// so; roles, the server admin flag and teams follow the groups. Nothing
// of it runs on a request: requests read the in-memory access model, which the
// sync's writes invalidate. One run at a time (a run still going when the next
// time comes is not doubled); stop() waits for the run in progress, which ends
// between two users, before the database closes. Nodes sharing a PostgreSQL
// database each have the schedule; a run goes only on the node that gets the
// cluster-wide lock (`exclusive`), the others skip that time.
import { Cron } from "croner";
import type { Logger } from "../../../../lib/logger.ts";
import type { LdapService } from "./ldap.ts";

export interface LdapSyncSchedule {
  /** no further run; resolves once the run in progress (if any) has ended */
  stop(): Promise<void>;
}

/** runs `work` unless another node runs it now (false, nothing run) */
export type Exclusive = (work: () => Promise<void>) => Promise<boolean>;

const alone: Exclusive = async (work) => {
  await work();
  return true;
};

export function scheduleLdapSync(ldap: Pick<LdapService, "syncAll">, cron: string, logger: Logger, exclusive: Exclusive = alone): LdapSyncSchedule {
  const log = logger.child({ logger: "ldap.sync" });
  let stopping = false;
  let running: Promise<void> | undefined;
  const sync = async () => {
    const report = await ldap.syncAll(() => stopping);
    if (!report.unreachable) log.info("LDAP active sync done", { ...report });
  };
  const run = () => {
    if (stopping || running) return;
    running = exclusive(sync)
      .then((ran) => {
        if (!ran) log.debug("LDAP active sync skipped: another node is running it");
      })
      .catch((err: unknown) => log.error("LDAP active sync failed", { error: (err as Error).message }))
      .finally(() => (running = undefined));
  };
  // unref: a pending run never keeps the process alive; protect: no overlapping runs
  const job = new Cron(cron, { unref: true, protect: true }, run);
  log.info("LDAP active sync scheduled", { sync_cron: cron, next: job.nextRun()?.toISOString() ?? "never" });
  return {
    async stop() {
      stopping = true;
      job.stop();
      await running;
    },
  };
}
