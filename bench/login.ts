// Sign-in cost through the one door (src/auth/): a password sign-in of an account without 2FA costs what the
// route's own steps cost before the door (the ratio of the door to those steps, interleaved in one run on one
// SQLite database), and one TOTP check (the sealed secret opened, the code matched) costs microseconds, not an
// argon2 hash.
// Usage: npx tsx bench/login.ts [rounds=40]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.js";
import { createContext } from "../src/context.js";
import { SealedBox } from "../src/shared/secret-box.js";
import { matchTotp, newTotpSecret, secretBytes, totpCode } from "../src/security/totp.js";

const rounds = Number(process.argv[2] ?? 40);
const dir = mkdtempSync(join(tmpdir(), "snip-bench-login-"));
const ctx = await createContext(loadConfig({ DATA_DIR: dir, LOG_LEVEL: "silent", PORT: "0" }));
const password = "bench password 1";
const user = await ctx.accounts.create({ email: "bench@example.com", password, verified: true });
const device = { browser: "Firefox", os: "Linux", country: null };

// Before: the steps POST /api/auth/login took in its handler before the door (the SSO policy's domain lookup,
// the password, the second-factor lookup, the sign-in noted, a session, the new-browser check). After: the
// door, which also asks the policies again on the account and writes the sign-in to the security activity.
const visitor = { ip: "127.0.0.1", device, sessionId: null };
const before = async () => {
  await ctx.sso.signIn.connectionFor(user.email);
  const u = await ctx.accounts.signIn(user.email, password, "127.0.0.1");
  if ((await ctx.twoFactor.methodsFor(u.id)).length > 0) throw new Error("this account has no second factor");
  await ctx.accounts.noteSignedIn(u);
  await ctx.sessions.create(u.id, device);
  await ctx.signInNotices.signedIn(u, device);
};
const after = async () => {
  const r = await ctx.auth.door.password(user.email, password, visitor);
  if (r.kind !== "session") throw new Error("this account has no second factor");
};
await before();
await after();
let tBefore = 0;
let tAfter = 0;
for (let i = 0; i < rounds; i++) {
  // Interleaved, so drift of the machine (other work on shared cores) touches both alike.
  let t = performance.now();
  await before();
  tBefore += performance.now() - t;
  t = performance.now();
  await after();
  tAfter += performance.now() - t;
}
console.log(
  `password sign-in without 2FA: route steps before the door ${(tBefore / rounds).toFixed(2)} ms, the door ${(tAfter / rounds).toFixed(2)} ms, ratio door/before ${(tAfter / tBefore).toFixed(3)} (${rounds} rounds each)`,
);

// One TOTP check as /api/auth/2fa/verify makes it: open the sealed secret, match the code within one step of drift.
const box = new SealedBox("bench-secret-".padEnd(48, "x"), "totp secrets v1");
const secret = newTotpSecret();
const sealed = box.seal(secret, user.id);
const now = Date.now();
const code = totpCode(secretBytes(secret), now - 30_000);
const checks = 20_000;
let found = 0;
const t0 = performance.now();
for (let i = 0; i < checks; i++) {
  const s = box.open(sealed, user.id) as string;
  if (matchTotp({ secret: secretBytes(s), token: code, at: now }) !== null) found++;
}
const perCheck = ((performance.now() - t0) / checks) * 1000;
if (found !== checks) throw new Error("a check failed");
console.log(`one TOTP check (open sealed secret + match with drift): ${perCheck.toFixed(1)} µs (${checks} checks)`);

await ctx.close();
rmSync(dir, { recursive: true, force: true });
