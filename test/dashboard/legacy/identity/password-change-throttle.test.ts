// Issue 16 #12: PUT /api/user/password checks oldPassword under the sign-in
// lock-out, so a stolen session cannot be used to guess the password.
import { describe, expect, it } from "vitest";
import { basic } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

const cookieOf = (setCookie: string | null) => /svc_session=([^;]*)/.exec(setCookie ?? "")?.[1] ?? "";

describe("PUT /api/user/password and the sign-in lock-out", () => {
  const t = useServer({ "security.login_max_attempts": 3 });

  it("3 wrong oldPassword from a session -> locked: even the right one is refused, as sign-in is", async () => {
    const u = await t.api.user("guessed", "Viewer");
    const signedIn = await t.api.post("/login", { body: { user: "guessed", password: u.password } });
    const session = { Cookie: `svc_session=${cookieOf(signedIn.headers.get("set-cookie"))}` };
    for (let i = 0; i < 3; i++) {
      const r = await t.api.put("/api/user/password", { headers: session, body: { oldPassword: `guess-${i}`, newPassword: "taken-over-pw" } });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe("Invalid old password");
    }
    const right = await t.api.put("/api/user/password", { headers: session, body: { oldPassword: u.password, newPassword: "taken-over-pw" } });
    expect(right.status).toBe(401);
    expect(right.body).toMatchObject({ message: "Invalid username or password", messageId: "login-attempt.blocked" });
    // the same lock-out as sign-in: the password form and basic auth are locked too
    const login = await t.api.post("/login", { body: { user: "guessed", password: u.password } });
    expect(login.body).toMatchObject({ messageId: "login-attempt.blocked" });
    expect((await t.api.get("/api/user", { auth: basic("guessed", "taken-over-pw") })).status).toBe(401);
    expect((await t.api.get("/api/user", { auth: basic("guessed", u.password) })).body).toMatchObject({ messageId: "login-attempt.blocked" });
  });

  it("a right oldPassword before the limit clears the count of failures", async () => {
    const u = await t.api.user("typo", "Viewer");
    for (let i = 0; i < 2; i++) {
      expect((await t.api.put("/api/user/password", { auth: u.auth, body: { oldPassword: "typo", newPassword: "new-password-1" } })).status).toBe(400);
    }
    const ok = await t.api.put("/api/user/password", { auth: u.auth, body: { oldPassword: u.password, newPassword: "new-password-1" } });
    expect(ok.status).toBe(200);
    const auth = basic("typo", "new-password-1");
    for (let i = 0; i < 2; i++) {
      expect((await t.api.put("/api/user/password", { auth, body: { oldPassword: "typo", newPassword: "new-password-2" } })).status).toBe(400);
    }
    expect((await t.api.put("/api/user/password", { auth, body: { oldPassword: "new-password-1", newPassword: "new-password-2" } })).status).toBe(200);
  });
});
