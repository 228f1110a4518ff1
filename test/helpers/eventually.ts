// Waiting for something to happen, portably and with a deadline (never a fixed
// sleep: a loaded 2-core machine can miss any fixed delay). The deadlines are
// generous: they only bound a hang, they measure nothing. See docs/testing.md.

/** a deadline long enough for a loaded machine; a passing poll returns at once */
export const POLL_DEADLINE_MS = 30_000;

/**
 * Waits until an assertion about a value read again and again passes (the
 * page updates asynchronously). Portable: vitest's expect.poll does not exist
 * under bun test. Throws the last assertion failure after the deadline.
 */
export async function eventually<T>(read: () => Promise<T> | T, check: (value: T) => void, timeoutMs = POLL_DEADLINE_MS): Promise<void> {
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

/**
 * Polls a condition until it holds (true) or the deadline passes (false):
 * `expect(await pollUntil(() => ...)).toBe(true)`.
 */
export async function pollUntil(check: () => boolean | Promise<boolean>, timeoutMs = POLL_DEADLINE_MS, everyMs = 25): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
