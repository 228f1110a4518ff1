// Playlists (playlist.svc.app): title, interval (duration text), items of
// dashboard_by_uid, dashboard_by_tag or the deprecated dashboard_by_id.
import { type } from "../../../../lib/arktype.ts";
import { parseDuration } from "../../../../lib/units.ts";
import { statusErrors, type KindDescriptor } from "../kind.ts";
import { checkSpec, checkTitle } from "../spec-check.ts";
import { NAME_LIMITS } from "../../core/identity/name-limits.ts";

const PlaylistSpec = type({
  title: "string",
  interval: "string",
  "items?": type({ type: "'dashboard_by_uid' | 'dashboard_by_tag' | 'dashboard_by_id'", value: "string" }).array(),
});

export function playlistKind(): KindDescriptor {
  const d: KindDescriptor = {
    group: "playlist.svc.app",
    resource: "playlists",
    kind: "Playlist",
    versions: [
      { name: "v1", stable: true, defaultOn: true },
      { name: "v0alpha1", stable: false, defaultOn: false },
    ],
    specSchema: PlaylistSpec,
    maxNameLength: 40,
    inFolders: false,
    staleStatus: 409,
    actions: { read: "playlists:read", create: "playlists:create", write: "playlists:write", delete: "playlists:delete" },
    validateSpec(spec, name) {
      const s = checkSpec(d, PlaylistSpec, spec, name);
      checkTitle(d, name, s.title, "playlist", NAME_LIMITS.playlistTitle);
      if (parseDuration(s.interval) === undefined) {
        throw statusErrors.invalid(d, name, "spec.interval", `"${s.interval}" is not a duration such as 5m or 1h30m`);
      }
      return { ...(spec as Record<string, unknown>), items: s.items ?? [] };
    },
    async scopes(_ctx, name) {
      return [`playlists:uid:${name}`];
    },
    async createScopes() {
      return undefined;
    },
  };
  return d;
}
