// Loading state for every request a page makes: data, error, loading, reload.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

export interface Load<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(fn: () => Promise<T>, deps: unknown[] = []): Load<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    fn().then(
      (data) => live && setState({ data, loading: false }),
      (error: Error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** calls fn now and every `ms` while the component is shown (and the tab visible) */
export function usePoll(fn: () => Promise<void> | void, ms: number, deps: unknown[] = []): void {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      if (stopped) return;
      if (document.visibilityState !== "hidden") {
        try {
          await saved.current();
        } catch {
          // each poller shows its own errors
        }
      }
      if (!stopped) timer = setTimeout(run, ms);
    };
    void run();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ms, ...deps]);
}

/** an action's pending flag and error, for buttons and forms */
export function useAction<A extends unknown[]>(fn: (...args: A) => Promise<unknown>) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const run = async (...args: A): Promise<boolean> => {
    setPending(true);
    setError(undefined);
    try {
      await fn(...args);
      return true;
    } catch (err) {
      setError(err as Error);
      return false;
    } finally {
      setPending(false);
    }
  };
  return { run, pending, error, clearError: () => setError(undefined) };
}

/** the last item of a later page was deleted: go back to the last page that has items */
export function usePageFallback(shown: number | undefined, total: number | undefined, page: number, perPage: number, setPage: (p: number) => void): void {
  useEffect(() => {
    if (shown === 0 && page > 1 && total !== undefined && total > 0) setPage(Math.max(1, Math.ceil(total / perPage)));
  }, [shown, total, page, perPage]);
}

/**
 * useLoad that reads again every `ms` (while the tab is visible) and on
 * reload(): the last data stays shown through a failed round, and an older
 * answer never overwrites a newer one.
 */
export function usePolledLoad<T>(fn: () => Promise<T>, ms: number, deps: unknown[] = []): Load<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const latest = useRef(0);
  const run = async () => {
    const mine = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await fn();
      if (mine === latest.current) setState({ data, loading: false });
    } catch (error) {
      if (mine === latest.current) setState((s) => ({ data: s.data, error: error as Error, loading: false }));
    }
  };
  usePoll(run, ms, deps);
  return { ...state, data: state.data, error: state.error, reload: () => void run() };
}
