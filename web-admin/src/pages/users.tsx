// Users, teams and organizations (/users): three tabs. The chosen tab is kept
// in the address (?tab=teams) so it survives an organization switch and a
// reload. Arrow keys, Home and End move between the tabs.
import { useLocation } from "preact-iso";
import { useRef } from "preact/hooks";
import { PageHeader } from "../components/ui.tsx";
import { useSession } from "../lib/session.ts";
import { OrgsTab } from "./users-orgs.tsx";
import { UsersTab } from "./users-people.tsx";
import { currentOrgName, isServerAdmin } from "./users-shared.tsx";
import { TeamsTab } from "./users-teams.tsx";

const TABS = [
  { id: "users", label: "Users", Panel: UsersTab },
  { id: "teams", label: "Teams", Panel: TeamsTab },
  { id: "orgs", label: "Organizations", Panel: OrgsTab },
] as const;

type TabId = (typeof TABS)[number]["id"];

export function UsersPage() {
  const session = useSession();
  const { query, route, path } = useLocation();
  const active: TabId = TABS.some((t) => t.id === query.tab) ? (query.tab as TabId) : "users";
  const refs = useRef<Record<string, HTMLButtonElement | null>>({});
  const select = (id: TabId, focus = false) => {
    if (id !== active) route(id === "users" ? path : `${path}?tab=${id}`, true);
    if (focus) refs.current[id]?.focus();
  };
  const onKeyDown = (e: KeyboardEvent) => {
    const i = TABS.findIndex((t) => t.id === active);
    const next =
      e.key === "ArrowRight" ? (i + 1) % TABS.length
      : e.key === "ArrowLeft" ? (i - 1 + TABS.length) % TABS.length
      : e.key === "Home" ? 0
      : e.key === "End" ? TABS.length - 1
      : -1;
    if (next < 0) return;
    e.preventDefault();
    select(TABS[next]!.id, true);
  };
  const tab = TABS.find((t) => t.id === active)!;

  return (
    <section>
      <PageHeader
        title="Users, teams and organizations"
        description={
          isServerAdmin(session)
            ? `Every user and organization of this server, and the teams and roles of ${currentOrgName(session)} (the current organization)`
            : `Your organizations, and the users and teams of ${currentOrgName(session)} (the current organization)`
        }
      />
      <div class="tabs" role="tablist" aria-label="Users, teams and organizations" onKeyDown={onKeyDown}>
        {TABS.map((t) => (
          <button
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={t.id === active}
            aria-controls={`panel-${t.id}`}
            tabIndex={t.id === active ? 0 : -1}
            ref={(el) => {
              refs.current[t.id] = el;
            }}
            onClick={() => select(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab.id}`} aria-labelledby={`tab-${tab.id}`} key={tab.id}>
        <tab.Panel />
      </div>
    </section>
  );
}
