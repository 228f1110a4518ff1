// Passwords are stored as bcrypt hashes (bcryptjs: pure JavaScript, so the
// same code runs on Bun, Node, Deno and inside the compiled binary).
import bcrypt from "bcryptjs";

const COST = 10;

export const MIN_PASSWORD_LENGTH = 4;

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, COST);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}
