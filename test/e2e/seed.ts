// Data for the browser tests that look at every page: an owner (Business) with a link in every state, clicks, a
// verified custom domain, an API key, a webhook with a test delivery and a failed one, a team member, an operator,
// an abuse report, a customer with a lead and a sale, bio pages in each theme (the custom one in colours too faint
// to read, which the page corrects) and a shared statistics page.
import { newId } from "../../src/shared/ids.js";
import type { TestServer } from "../helpers/server.js";
import { customerWithSale } from "../helpers/conversions.js";

export const SEED_PASSWORD = "look-password-1";

export interface Seeded {
  owner: { id: string; email: string };
  member: { id: string; email: string };
  operator: { email: string };
  /** Aliases by state; `plain` is active with clicks, `open` active with an unused click limit. */
  alias: Record<"plain" | "open" | "expired" | "used" | "disabled" | "blocked" | "password", string>;
  plainId: string;
  blockedHost: string;
  /** The owner's customer (a lead and a sale through the plain link). */
  customer: string;
  /** Bio pages' slugs by theme; `custom` has a text and a button text below 4.5:1 on their grounds. */
  bio: Record<"auto" | "light" | "dark" | "custom", string>;
  /** The plain link's shared statistics page: /share/<token>. */
  sharePath: string;
}

export async function seedEveryState(server: TestServer, stamp: string): Promise<Seeded> {
  const ctx = server.ctx;
  const db = ctx.storage.db;
  const owner = await ctx.accounts.create({
    email: `owner-${stamp}@example.com`,
    password: SEED_PASSWORD,
    plan: "business",
    verified: true,
    name: "Olga Owner",
  });
  const member = await ctx.accounts.create({ email: `member-${stamp}@example.com`, password: SEED_PASSWORD, plan: "free", verified: true, name: "Max Member" });
  const operator = await ctx.accounts.create({
    email: `ops-${stamp}@example.com`,
    password: SEED_PASSWORD,
    verified: true,
    admin: true,
    name: "Olive Operator",
  });
  const blockedHost = `blocked-${stamp}.example`;
  const make = (alias: string, extra: Record<string, unknown> = {}) =>
    ctx.links.create(owner, {
      url: `https://www.example.com/a/rather/long/path/for/${alias}?utm_source=newsletter&utm_medium=email`,
      alias: `${alias}-${stamp}`,
      ...extra,
    });
  const plain = await make("plain");
  const open = await make("open", { max_clicks: 5 });
  const used = await make("used", { max_clicks: 1 });
  const expired = await make("expired", { expires_at: new Date(Date.now() + 86_400_000).toISOString() });
  const disabled = await make("disabled");
  const password = await make("password", { password: "open sesame" });
  const blocked = await ctx.links.create(owner, { url: `https://${blockedHost}/login`, alias: `blocked-${stamp}` });
  const visit = (alias: string) =>
    fetch(`${server.url}/${alias}`, { redirect: "manual", headers: { "user-agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)" } });
  for (let i = 0; i < 3; i++) await visit(plain.alias);
  await visit(open.alias);
  await visit(used.alias);
  await ctx.clicks.flush();
  await db
    .updateTable("links")
    .set({ expires_at: Date.now() - 60_000 })
    .where("id", "=", expired.id)
    .execute();
  await db
    .updateTable("links")
    .set({ disabled_at: Date.now(), disabled_status: 410, disabled_reason: "Phishing page reported twice" })
    .where("id", "=", disabled.id)
    .execute();
  await ctx.blocklistAdmin.add({ id: operator.id, email: operator.email }, blockedHost, "Fake bank kit");

  const now = Date.now();
  await db.insertInto("team_members").values({ owner_id: owner.id, member_id: member.id, joined_at: now }).execute();
  await db
    .insertInto("domains")
    .values({
      id: newId(),
      owner_id: owner.id,
      hostname: `go.brand-${stamp}.example`,
      status: "verified",
      txt_token: "snip-verify-abc",
      next_action: null,
      last_checked_at: now,
      verified_at: now,
      lost_at: null,
      next_check_at: null,
      verify_requested_at: null,
      created_at: now,
    })
    .execute();
  await ctx.apiKeys.create(owner, {
    name: "Order system",
    scopes: ["links:create", "links:read", "stats:read"],
    expires_at: new Date(now + 90 * 86_400_000).toISOString(),
  });
  await ctx.apiKeys.create(owner, { name: "Nightly backup", scopes: ["export"] });
  const webhookId = newId();
  await db
    .insertInto("webhooks")
    .values({
      id: webhookId,
      owner_id: owner.id,
      name: "Order system",
      url: "https://hooks.example.com/snip/a/long/receiver/path",
      kind: "slack",
      secret_enc: null,
      active: 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
  const payload = JSON.stringify({
    version: 1,
    id: "x",
    type: "link_click",
    test: true,
    link: { alias: "example", short_url: `${server.url}/example`, url: "https://example.com/" },
  });
  await db
    .insertInto("webhook_deliveries")
    .values([
      { id: newId(), webhook_id: webhookId, event: "link_click", at: now - 1000, status_code: 200, error: null, duration_ms: 120, test: 1, payload },
      {
        id: newId(),
        webhook_id: webhookId,
        event: "link_click",
        at: now,
        status_code: null,
        error: "timeout after 2000 ms",
        duration_ms: 2001,
        test: 0,
        payload,
      },
    ])
    .execute();
  await db
    .insertInto("abuse_reports")
    .values({
      id: newId(),
      link_id: plain.id,
      domain: "",
      alias: plain.alias,
      url: plain.url,
      reason: "phishing",
      details: "Asks for my bank password.",
      reporter_email: "victim@example.net",
      state: "open",
      created_at: now,
      resolved_at: null,
      resolved_by: null,
    })
    .execute();
  const customer = `customer-${stamp}@shop.example`;
  await customerWithSale(server, plain.id, customer, `inv-${stamp}`);
  const bio = { auto: `bio-auto-${stamp}`, light: `bio-light-${stamp}`, dark: `bio-dark-${stamp}`, custom: `bio-custom-${stamp}` };
  // Faint yellow on yellow, and navy on navy: the page draws them black and white (docs/bio-pages.md, Themes).
  const faint = { background: "#ffe14d", text: "#f5c400", button: "#1e3a8a", button_text: "#2b4aa0" };
  for (const theme of ["auto", "light", "dark", "custom"] as const) {
    await ctx.bioPages.create(owner, {
      slug: bio[theme],
      title: "Olga's bakery",
      description: "Bread, cakes and classes in Leipzig.\nOpen every day but Monday.",
      theme,
      colors: theme === "custom" ? faint : null,
      blocks: [
        { type: "heading", text: "Order" },
        { type: "link", link_id: plain.id, label: "Order a cake for the weekend" },
        { type: "text", text: "Classes start at 10:00; bring an apron." },
        { type: "social", network: "instagram", url: "https://instagram.com/olgas.bakery" },
        { type: "social", network: "email", url: "mailto:olga@bakery.example" },
      ],
    });
  }
  const sharePath = new URL((await ctx.shares.create(owner, { link_id: plain.id })).url).pathname;
  return {
    owner: { id: owner.id, email: owner.email },
    member: { id: member.id, email: member.email },
    operator: { email: operator.email },
    alias: {
      plain: plain.alias,
      open: open.alias,
      expired: expired.alias,
      used: used.alias,
      disabled: disabled.alias,
      blocked: blocked.alias,
      password: password.alias,
    },
    plainId: plain.id,
    blockedHost,
    customer,
    bio,
    sharePath,
  };
}
