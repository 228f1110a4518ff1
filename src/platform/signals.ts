// Termination signals, the same on Bun, Deno and Node (node:process compat).
export function onTerminate(handler: (signal: "SIGINT" | "SIGTERM") => void): () => void {
  const onInt = () => handler("SIGINT");
  const onTerm = () => handler("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return () => {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  };
}
