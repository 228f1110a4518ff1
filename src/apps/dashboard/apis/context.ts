// The per-request context the kinds work in, shared by /apis handlers and
// the legacy routes that read the same objects (search, stars).
import type { Identity } from "../core/identity/authenticate.ts";
import { namespaceOf, type NamespaceContext } from "../core/identity/namespaces.ts";
import { FOLDER_ANNOTATION, type KindContext } from "./kind.ts";
import type { ResourceStore } from "./store.ts";

export function createKindContext(identity: Identity, orgId: number, store: ResourceStore, namespaces: NamespaceContext, now: () => number): KindContext {
  const namespace = namespaceOf(orgId, namespaces);
  const bucket = (group: string, resource: string) => ({ group, resource, namespace });
  const chains = new Map<string, Promise<string[]>>();
  return {
    throughFolder: new Map(),
    identity,
    namespace,
    orgId,
    store,
    now,
    bucket,
    folderChain(folder) {
      if (!folder) return Promise.resolve([]);
      let chain = chains.get(folder);
      if (!chain) chains.set(folder, (chain = walk(folder)));
      return chain.then((c) => [...c]);
    },
  };

  async function walk(folder: string): Promise<string[]> {
    const chain: string[] = [];
    let next: string | undefined = folder;
    while (next && !chain.includes(next) && chain.length < 16) {
      chain.push(next);
      const parent = await store.get(bucket("folder.svc.app", "folders"), next);
      next = parent?.metadata.annotations[FOLDER_ANNOTATION];
    }
    return chain;
  }
}
