// Operator accounts for tests of the console (docs/operator.md): created with the admin flag and signed in.
import { ApiClient } from "./client.js";
import type { TestServer } from "./server.js";

export interface Account {
  client: ApiClient;
  email: string;
  id: string;
}

/** A signed-in account, an operator when `admin`. */
export async function account(server: TestServer, email: string, opts: { plan?: string; admin?: boolean } = {}): Promise<Account> {
  const user = await server.ctx.accounts.create({ email, password: "correct horse 1", plan: opts.plan ?? "free", verified: true, admin: opts.admin ?? false });
  const client = new ApiClient(server.url);
  const r = await client.login(email, "correct horse 1");
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
  return { client, email, id: user.id };
}

export const operator = (server: TestServer, email: string, plan = "free") => account(server, email, { plan, admin: true });

/** The newest audit entries (raw rows, JSON parsed), newest first. */
export async function auditRows(server: TestServer, limit = 10) {
  const rows = await server.ctx.storage.db.selectFrom("admin_audit").selectAll().orderBy("id", "desc").limit(limit).execute();
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    at: Number(r.at),
    before: r.before === null ? null : JSON.parse(r.before),
    after: r.after === null ? null : JSON.parse(r.after),
  }));
}
