// Registers the files that `bun build --compile` embedded (paths inside the
// executable's own file system) before the CLI runs. Used only by the entry
// point that scripts/build.ts generates for the compiled binary.
import { embedAssets, type PGliteAssets } from "./embedded.ts";

export interface CompiledFiles {
  pgliteWasm: string;
  initdbWasm: string;
  pgliteData: string;
  seed: string;
  /** the worker pool's worker entry, embedded as an entry point of its own */
  taskWorker: URL;
  /** URL path -> embedded file path */
  admin: Record<string, string>;
}

export function registerCompiledFiles(files: CompiledFiles): void {
  const compile = async (path: string) => WebAssembly.compile(await Bun.file(path).arrayBuffer());
  // Every start needs this module: compiling it (on background threads) begins
  // now, while the rest of the program is still being loaded.
  const pgliteModule = compile(files.pgliteWasm);
  pgliteModule.catch(() => {}); // a failure surfaces where the module is awaited
  embedAssets({
    pglite: async ({ initdb }): Promise<PGliteAssets> => ({
      pgliteWasmModule: await pgliteModule,
      // initdb is only needed when no seed can be restored: skip compiling it otherwise
      ...(initdb ? { initdbWasmModule: await compile(files.initdbWasm) } : {}),
      fsBundle: Bun.file(files.pgliteData),
    }),
    seed: async () => Bun.file(files.seed),
    taskWorker: files.taskWorker,
    admin: async () =>
      new Map(await Promise.all(Object.entries(files.admin).map(async ([p, f]) => [p, await Bun.file(f).bytes()] as const))),
  });
}
