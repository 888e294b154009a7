// A verified custom domain without DNS: the row written directly, then announced so every cache knows it.
import type { TestServer } from "./server.js";

export async function verifiedDomain(server: Pick<TestServer, "ctx">, id: string, ownerId: string, hostname: string): Promise<void> {
  const now = Date.now();
  await server.ctx.storage.db
    .insertInto("domains")
    .values({
      id,
      owner_id: ownerId,
      hostname,
      status: "verified",
      txt_token: "t",
      next_action: null,
      last_checked_at: now,
      verified_at: now,
      lost_at: null,
      next_check_at: null,
      verify_requested_at: null,
      created_at: now,
    })
    .execute();
  await server.ctx.domains.announce(hostname);
}
