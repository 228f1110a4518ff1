// Brute-force protection: after too many failed logins for one login name
// within the lock-out window, further attempts are refused without checking
// the password, with the same public message as a wrong password (so the
// response never tells whether the login exists).

export interface LoginThrottle {
  isLocked(login: string): boolean;
  recordFailure(login: string): void;
  reset(login: string): void;
}

export function createLoginThrottle(maxAttempts: number, windowMs: number, now = () => Date.now()): LoginThrottle {
  const failures = new Map<string, number[]>();
  const recent = (login: string) => {
    const since = now() - windowMs;
    const list = (failures.get(login.toLowerCase()) ?? []).filter((t) => t > since);
    if (list.length) failures.set(login.toLowerCase(), list);
    else failures.delete(login.toLowerCase());
    return list;
  };
  return {
    isLocked: (login) => maxAttempts > 0 && recent(login).length >= maxAttempts,
    recordFailure(login) {
      if (maxAttempts <= 0) return;
      if (failures.size > 100_000) failures.clear(); // bounded memory under a spray of logins
      failures.set(login.toLowerCase(), [...recent(login), now()]);
    },
    reset: (login) => void failures.delete(login.toLowerCase()),
  };
}
