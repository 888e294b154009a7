// Issue 55, finding 8: the audit log lists operators' console actions and account holders' changes to their own
// accounts (API keys, two-factor sign-in, passkeys, team policy, single sign-on); each entry says which
// (`actor_role`: operator, account_holder, system), on both engines.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { account, operator } from "../helpers/operator.js";
import { CLI_ACTOR, actorRole } from "../../src/admin/audit-log.js";
import { setOperator } from "../../src/admin/operators.js";

describe.each(ENGINES)("audit log roles on %s", (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  it("names the operator's action, the account holder's own and the command line's apart", async () => {
    const ops = await operator(server, `roles-op-${engine}@ops.test`);
    const holder = await account(server, `roles-holder-${engine}@example.com`, { plan: "business" });
    expect((await holder.client.post("/api/keys", { name: "deploy" })).status).toBe(201);
    expect((await ops.client.patch(`/api/admin/accounts/${holder.id}`, { plan: "pro" })).status).toBe(200);
    await setOperator({ db: server.ctx.storage.db, clock: server.ctx.clock, audit: server.ctx.audit }, CLI_ACTOR, holder.email, true);

    const r = await ops.client.get(`/api/admin/audit?target=${holder.id}`);
    expect(r.status).toBe(200);
    const keyEntries = await ops.client.get("/api/admin/audit?action=api_key.create");
    const mine = keyEntries.body.entries.filter((e: { actor_id: string }) => e.actor_id === holder.id);
    expect(mine.map((e: { actor_role: string; actor_email: string }) => [e.actor_role, e.actor_email])).toEqual([["account_holder", holder.email]]);
    expect(r.body.entries.map((e: { action: string; actor_role: string; actor_email: string }) => [e.action, e.actor_role, e.actor_email])).toEqual([
      ["account.admin", "system", "command line"],
      ["account.plan", "operator", ops.email],
    ]);
  });

  it("a single sign-on connection's removal is its owner's own, or an operator's", () => {
    const row = { actor_id: "u1", actor_email: "owner@acme.test", action: "sso.delete", summary: "owner@acme.test removed their single sign-on connection" };
    expect(actorRole(row, { issuer: "https://idp.test", owner_id: "u1" })).toBe("account_holder");
    expect(
      actorRole(
        { ...row, actor_id: "op1", actor_email: "op@ops.test", summary: "single sign-on connection with https://idp.test removed by an operator" },
        { owner_id: "u1" },
      ),
    ).toBe("operator");
    // Entries from before the owner was recorded: told apart by the owner's summary.
    expect(actorRole(row, { issuer: "https://idp.test" })).toBe("account_holder");
    expect(
      actorRole({ ...row, actor_id: "op1", actor_email: "op@ops.test", summary: "single sign-on connection with https://idp.test removed by an operator" }, {}),
    ).toBe("operator");
    expect(actorRole({ actor_id: "u1", actor_email: "a@b.test", action: "account.2fa_enabled", summary: "" }, null)).toBe("account_holder");
    expect(actorRole({ actor_id: null, actor_email: "SSO domain re-check", action: "sso.domain_lost", summary: "" }, null)).toBe("system");
  });
});
