// A bio page's slug and a link's alias share one address per host (docs/bio-pages.md, Slugs and aliases), also when
// they are claimed at the same moment, on both engines (on PostgreSQL each request on a connection of its own):
// many pairs of a link and a bio page of two other accounts asking for one name at once, as creations and as renames
// (PATCH of the alias, of the slug) in every combination, and an import's lot of links in one transaction. Exactly one
// of each pair wins, the other gets 409 alias_taken, never a 5xx, and the database holds the name once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type TestAccount, testAccount } from "../helpers/team.js";
import type { ApiResponse } from "../helpers/client.js";

/** Pairs of each kind per run: enough that, without the guard, PostgreSQL let both sides through in every run tried. */
const PAIRS = 12;
const OWNERS = 4;
const KINDS = ["create link + create page", "rename link + rename page", "create link + rename page", "rename link + create page"] as const;

describe.each(ENGINES)("a slug and an alias claimed at once on %s", (engine) => {
  let server: TestServer;
  let linkOwners: TestAccount[];
  let pageOwners: TestAccount[];
  let n = 0;
  const stamp = `${engine.slice(0, 2)}${Date.now().toString(36)}`;

  beforeAll(async () => {
    server = await startTestServer({ engine });
    // Several owners on each side: one owner's writes queue on the owner's lock, other owners' do not.
    linkOwners = await Promise.all(Array.from({ length: OWNERS }, (_, i) => testAccount(server, `race-links-${engine}-${i}@example.com`, "business")));
    pageOwners = await Promise.all(Array.from({ length: OWNERS }, (_, i) => testAccount(server, `race-pages-${engine}-${i}@example.com`, "business")));
  });
  afterAll(async () => server?.close());

  const name = () => `race-${stamp}-${++n}`;
  const page = (slug: string) => ({ slug, title: "Race", blocks: [] });
  async function existingLink(a: TestAccount): Promise<string> {
    const r = await a.client.post("/api/links", { url: "https://example.com/race", alias: name() });
    if (r.status !== 201) throw new Error(`link: ${r.status} ${r.text}`);
    return r.body.link.id as string;
  }
  async function existingPage(a: TestAccount): Promise<string> {
    const r = await a.client.post("/api/bio-pages", page(name()));
    if (r.status !== 201) throw new Error(`page: ${r.status} ${r.text}`);
    return r.body.page.id as string;
  }

  it.each(KINDS)("%s: exactly one of each pair wins, the other gets 409 alias_taken, never a 5xx", async (kind) => {
    const [linkSide, pageSide] = kind.split(" + ") as [string, string];
    // Everything each pair needs exists first, so that the pairs' requests start together.
    const pairs = await Promise.all(
      Array.from({ length: PAIRS }, async (_, i) => {
        const linkOwner = linkOwners[i % OWNERS]!;
        const pageOwner = pageOwners[i % OWNERS]!;
        return {
          name: name(),
          linkOwner,
          pageOwner,
          linkId: linkSide === "rename link" ? await existingLink(linkOwner) : null,
          pageId: pageSide === "rename page" ? await existingPage(pageOwner) : null,
        };
      }),
    );
    const answers = await Promise.all(
      pairs.flatMap((p) => [
        p.linkId === null
          ? p.linkOwner.client.post("/api/links", { url: "https://example.com/race", alias: p.name })
          : p.linkOwner.client.patch(`/api/links/${p.linkId}`, { alias: p.name }),
        p.pageId === null ? p.pageOwner.client.post("/api/bio-pages", page(p.name)) : p.pageOwner.client.patch(`/api/bio-pages/${p.pageId}`, { slug: p.name }),
      ]),
    );
    const won = (r: ApiResponse) => r.status === 200 || r.status === 201;
    const outcomes = pairs.map((p, i) => {
      const [l, b] = [answers[2 * i]!, answers[2 * i + 1]!];
      const refused = [l, b].filter((r) => !won(r)).map((r) => `${r.status} ${r.body?.code}`);
      return `${won(l) ? "link" : ""}${won(b) ? "page" : ""} won, ${refused.join(", ") || "none refused"}`;
    });
    expect(outcomes.filter((o) => !/^(link|page) won, 409 alias_taken$/.test(o))).toEqual([]);
    // The database agrees: each name is held by one link or one page on the main host, not both.
    const names = pairs.map((p) => p.name);
    const db = server.ctx.storage.db;
    const links = await db.selectFrom("links").select("alias").where("domain", "=", "").where("alias", "in", names).execute();
    const pages = await db.selectFrom("bio_pages").select("slug").where("domain", "=", "").where("slug", "in", names).execute();
    expect([...links.map((l) => l.alias), ...pages.map((p) => p.slug)].sort()).toEqual([...names].sort());
    // And the address answers as the winner: a redirect for a link, the page for a page.
    for (const [i, p] of pairs.entries()) {
      const res = await fetch(`${server.url}/${p.name}`, { redirect: "manual" });
      expect(res.status, p.name).toBe(won(answers[2 * i]!) ? 302 : 200);
    }
  });

  it("an import's links (one transaction for the lot) and pages of the same names at once: each name goes to one side", async () => {
    const { ctx } = server;
    const importer = await ctx.storage.db.selectFrom("users").selectAll().where("id", "=", linkOwners[0]!.id).executeTakeFirstOrThrow();
    const names = Array.from({ length: PAIRS }, () => name());
    const prepared = await Promise.all(names.map((alias) => ctx.links.prepare(importer, { url: "https://example.com/imported", alias })));
    const [outcomes, ...pages] = await Promise.all([
      ctx.storage.db.transaction().execute((trx) => ctx.links.createMany(trx, importer, prepared, async () => "refuse")),
      ...names.map((slug, i) => pageOwners[i % OWNERS]!.client.post("/api/bio-pages", page(slug))),
    ]);
    const sides = names.map((_, i) => {
      const out = outcomes[i]!;
      const link = "link" in out ? "link" : "error" in out ? out.error.code : "adopted";
      return `${link} / ${pages[i]!.status} ${pages[i]!.body?.code ?? ""}`.trim();
    });
    expect(sides.filter((s) => s !== "link / 409 alias_taken" && s !== "alias_taken / 201")).toEqual([]);
  });
});
