// Passwords are stored as bcrypt hashes (bcryptjs: pure JavaScript, so the
// same code runs on Bun, Node, Deno and inside the compiled binary).
import bcrypt from "bcryptjs";

const COST = 10;

export const MIN_PASSWORD_LENGTH = 4;

let comparisons = 0;

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, COST);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  comparisons++;
  return bcrypt.compare(password, hash);
}

/** how many bcrypt comparisons this process has made (tests prove the verified-credentials cache serves) */
export function passwordComparisons(): number {
  return comparisons;
}
