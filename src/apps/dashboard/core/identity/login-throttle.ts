// Brute-force protection: after too many failed logins for one account
// within the lock-out window, further attempts are refused without checking
// the password, with the same public message as a wrong password (so the
// response never tells whether the login exists). Failures are counted per
// account (by id, whichever of login or email was typed) and, for names that
// match no account, per name.

export interface LoginThrottle {
  isLocked(key: string): boolean;
  recordFailure(key: string): void;
  reset(key: string): void;
}

/** at most this many names are tracked; the oldest are forgotten first */
const MAX_TRACKED = 100_000;

export function createLoginThrottle(maxAttempts: number, windowMs: number, now = () => Date.now()): LoginThrottle {
  const failures = new Map<string, number[]>();
  const recent = (key: string) => {
    const since = now() - windowMs;
    const list = (failures.get(key) ?? []).filter((t) => t > since);
    if (list.length) failures.set(key, list);
    else failures.delete(key);
    return list;
  };
  return {
    isLocked: (key) => maxAttempts > 0 && recent(key).length >= maxAttempts,
    recordFailure(key) {
      if (maxAttempts <= 0) return;
      const list = [...recent(key), now()];
      failures.delete(key); // re-insert: Map order is then least recently failed first
      failures.set(key, list);
      while (failures.size > MAX_TRACKED) failures.delete(failures.keys().next().value!);
    },
    reset: (key) => void failures.delete(key),
  };
}
