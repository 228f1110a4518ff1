// Waits until an assertion about a value read again and again passes (the
// page updates asynchronously). Portable: vitest's expect.poll does not exist
// under bun test.
export async function eventually<T>(read: () => Promise<T> | T, check: (value: T) => void, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let failure: unknown;
    try {
      check(await read());
      return;
    } catch (err) {
      failure = err;
    }
    if (Date.now() > deadline) throw failure;
    await new Promise((r) => setTimeout(r, 100));
  }
}
