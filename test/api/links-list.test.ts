// The links list (docs/api.md, Links list): every filter (tags all matching, domain, each state,
// has_password, q over each field and tag names), each sort and order paged by cursor across pages in
// exact order, total, members listing an owner's links, and bad or hostile queries answered 400 naming
// the field. Title, note and the other columns are set straight in the database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import type { ApiClient } from "../helpers/client.js";
import { joinTeam, testAccount } from "../helpers/team.js";
import type { LinkUpdate } from "../../src/storage/schema.js";
import { FROM_TAG_MAX } from "../../src/links/list-links.js";

const T0 = 1_700_000_000_000;
type Page = { links: { id: string; alias: string }[]; next_cursor: string | null; total: number };

describe.each(ENGINES)("links list on %s", (engine) => {
  let server: TestServer;
  let n = 0;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  const account = (plan = "free") => testAccount(server, `list-${engine}-${++n}@example.com`, plan);

  /** A link made through the API, then given `set` straight in the database; returns its id. */
  async function link(c: ApiClient, alias: string, set: LinkUpdate = {}): Promise<string> {
    const r = await c.post("/api/links", { url: `https://example.com/${alias}`, alias });
    expect(r.status).toBe(201);
    if (Object.keys(set).length > 0) await server.ctx.storage.db.updateTable("links").set(set).where("id", "=", r.body.link.id).execute();
    return r.body.link.id as string;
  }

  async function tag(c: ApiClient, name: string, linkIds: string[], owner?: string): Promise<string> {
    const r = await c.post(`/api/tags${owner ? `?owner=${owner}` : ""}`, { name });
    expect(r.status).toBe(201);
    if (linkIds.length > 0)
      await server.ctx.storage.db
        .insertInto("link_tags")
        .values(linkIds.map((link_id) => ({ link_id, tag_id: r.body.tag.id })))
        .execute();
    return r.body.tag.id as string;
  }

  async function list(c: ApiClient, query: string): Promise<Page> {
    const r = await c.get(`/api/links?${query}`);
    expect([query, r.status]).toEqual([query, 200]);
    return r.body as Page;
  }

  /** Aliases of one page (the default: every link, newest first) and the total. */
  async function aliases(c: ApiClient, query: string): Promise<[string[], number]> {
    const page = await list(c, `limit=100&${query}`);
    return [page.links.map((l) => l.alias), page.total];
  }

  async function refused(c: ApiClient, query: string): Promise<string[]> {
    const r = await c.get(`/api/links?${query}`);
    expect([query, r.status, r.body.code]).toEqual([query, 400, "invalid_request"]);
    return (r.body.details as { field: string }[]).map((d) => d.field);
  }

  describe("filters", () => {
    let c: ApiClient;
    const ids: Record<string, string> = {};
    const tags: Record<string, string> = {};
    beforeAll(async () => {
      c = (await account("business")).client;
      const now = Date.now();
      const disabled = { disabled_at: now, disabled_status: 410, disabled_reason: "spam" };
      const specs: [string, LinkUpdate][] = [
        ["alpha", { title: "Quarterly Report" }],
        ["bravo", { note: "Send to 100% of staff_list" }],
        ["charlie", { domain: "go.example.org" }],
        ["delta", { password_hash: "not-a-real-hash" }],
        ["echo", { archived_at: now }],
        ["foxtrot", { expires_at: now - 1000 }],
        ["golf", { max_clicks: 2, click_count: 2 }],
        ["hotel", disabled],
        ["india", { ...disabled, expires_at: now - 1000 }],
        ["juliet", { expires_at: now - 1000, max_clicks: 2, click_count: 2 }],
        ["kilo", { domain: "go.example.org", url: "https://example.org/Path_With%Percent" }],
        ["lima", { archived_at: now, expires_at: now - 1000 }],
        ["mike", { expires_at: now + 86_400_000, max_clicks: 10, click_count: 9 }],
      ];
      for (const [i, [alias, set]] of specs.entries()) ids[alias] = await link(c, alias, { created_at: T0 + i * 1000, ...set });
      tags.red = await tag(c, "Red", [ids.alpha!, ids.bravo!, ids.delta!, ids.echo!]);
      tags.blue = await tag(c, "Blue sky", [ids.alpha!, ids.charlie!, ids.delta!]);
      tags.green = await tag(c, "Green", [ids.delta!]);
      await tag(c, "Unused", []);
    });

    it("without filters: every link but archived ones, newest first, with the total", async () => {
      expect(await aliases(c, "")).toEqual([["mike", "kilo", "juliet", "india", "hotel", "golf", "foxtrot", "delta", "charlie", "bravo", "alpha"], 11]);
    });

    it("tag: one or several (all must match), by name ignoring case and spaces or by id; an unknown tag matches nothing", async () => {
      expect(await aliases(c, "tag=red")).toEqual([["delta", "bravo", "alpha"], 3]);
      expect(await aliases(c, "tag=RED&tag=blue%20sky")).toEqual([["delta", "alpha"], 2]);
      expect(await aliases(c, `tag=%20%20Blue%20%20%20SKY%20&tag=${tags.red}&tag=green`)).toEqual([["delta"], 1]);
      expect(await aliases(c, "tag=red&tag=Red&tag=RED")).toEqual([["delta", "bravo", "alpha"], 3]);
      expect(await aliases(c, "tag=red&tag=unused")).toEqual([[], 0]);
      expect(await aliases(c, "tag=red&tag=no-such-tag")).toEqual([[], 0]);
      // Archived links carry tags too, and show with state=archived.
      expect(await aliases(c, "tag=red&state=archived")).toEqual([["echo"], 1]);
      // Another account's tag, by name or id, is not one of this owner's.
      const other = (await account()).client;
      const foreign = await tag(other, "Foreign", []);
      expect(await aliases(c, `tag=${foreign}`)).toEqual([[], 0]);
      expect(await aliases(other, `tag=${tags.red}`)).toEqual([[], 0]);
    });

    it("domain: a custom domain (any case, trailing dot), or the main host as empty or as the service's own host name", async () => {
      expect(await aliases(c, "domain=go.example.org")).toEqual([["kilo", "charlie"], 2]);
      expect(await aliases(c, "domain=GO.Example.org.")).toEqual([["kilo", "charlie"], 2]);
      const main = [["mike", "juliet", "india", "hotel", "golf", "foxtrot", "delta", "bravo", "alpha"], 9];
      expect(await aliases(c, "domain=")).toEqual(main);
      expect(await aliases(c, `domain=${new URL(server.url).hostname}`)).toEqual(main);
      expect(await aliases(c, "domain=nowhere.example")).toEqual([[], 0]);
    });

    it("state: each one exclusive (disabled, else expired, else limit_reached, else active); archived apart", async () => {
      expect(await aliases(c, "state=active")).toEqual([["mike", "kilo", "delta", "charlie", "bravo", "alpha"], 6]);
      expect(await aliases(c, "state=expired")).toEqual([["juliet", "foxtrot"], 2]);
      expect(await aliases(c, "state=limit_reached")).toEqual([["golf"], 1]);
      expect(await aliases(c, "state=disabled")).toEqual([["india", "hotel"], 2]);
      expect(await aliases(c, "state=archived")).toEqual([["lima", "echo"], 2]);
    });

    it("has_password: true and false", async () => {
      expect(await aliases(c, "has_password=true")).toEqual([["delta"], 1]);
      expect((await aliases(c, "has_password=false"))[1]).toBe(10);
      expect(await aliases(c, "has_password=true&state=archived")).toEqual([[], 0]);
    });

    it("q: alias, destination, title, note and tag names, ignoring case; LIKE characters are plain characters", async () => {
      expect(await aliases(c, "q=CHARL")).toEqual([["charlie"], 1]);
      expect(await aliases(c, "q=example.org%2Fpath")).toEqual([["kilo"], 1]);
      expect(await aliases(c, "q=quarterly%20REPORT")).toEqual([["alpha"], 1]);
      expect(await aliases(c, "q=staff_list")).toEqual([["bravo"], 1]);
      expect(await aliases(c, "q=gree")).toEqual([["delta"], 1]);
      expect(await aliases(c, "q=sky")).toEqual([["delta", "charlie", "alpha"], 3]);
      // % and _ match themselves only: "100%" and "Path_With%" hold them; "ta_f" would match "staff" as a pattern.
      expect(await aliases(c, "q=%25")).toEqual([["kilo", "bravo"], 2]);
      expect(await aliases(c, "q=h_w")).toEqual([["kilo"], 1]);
      expect(await aliases(c, "q=ta_f")).toEqual([[], 0]);
      expect(await aliases(c, "q=%5C")).toEqual([[], 0]);
      // Combined with the other filters.
      expect(await aliases(c, "q=a&tag=red&has_password=false&domain=")).toEqual([["bravo", "alpha"], 2]);
      expect(await aliases(c, `q=${"%25_".repeat(166)}`)).toEqual([[], 0]);
    });

    it("a single tag parameter, repeated ones and filters together page with the same total", async () => {
      const first = await list(c, "state=active&limit=4");
      expect([first.links.map((l) => l.alias), first.total]).toEqual([["mike", "kilo", "delta", "charlie"], 6]);
      const second = await list(c, `state=active&limit=4&cursor=${first.next_cursor}`);
      expect([second.links.map((l) => l.alias), second.total, second.next_cursor]).toEqual([["bravo", "alpha"], 6, null]);
    });
  });

  describe("sorts", () => {
    let c: ApiClient;
    /** [alias, created_at, click_count, last_click_at]: ties on each key, never-clicked links. */
    const rows: [string, number, number, number | null][] = [
      ["sort-1", T0 + 1, 5, T0 + 50],
      ["sort-2", T0 + 2, 0, null],
      ["sort-3", T0 + 3, 5, T0 + 50],
      ["sort-4", T0 + 3, 12, T0 + 90],
      ["sort-5", T0 + 5, 0, null],
      ["sort-6", T0 + 6, 7, T0 + 10],
      ["sort-7", T0 + 7, 5, T0 + 70],
      ["sort-8", T0 + 8, 1, null],
    ];
    const ids = new Map<string, string>();
    beforeAll(async () => {
      c = (await account()).client;
      for (const [alias, created, clicks, last] of rows)
        ids.set(alias, await link(c, alias, { created_at: created, click_count: clicks, last_click_at: last }));
    });

    /** The order the database gives ids (its collation), the tie-break of every sort. */
    async function idRank(): Promise<Map<string, number>> {
      const sorted = await server.ctx.storage.db
        .selectFrom("links")
        .select("id")
        .where("id", "in", [...ids.values()])
        .orderBy("id")
        .execute();
      return new Map(sorted.map((r, i) => [r.id, i]));
    }

    for (const sort of ["created", "clicks", "last_click"] as const) {
      for (const order of ["desc", "asc"] as const) {
        it(`sort=${sort}&order=${order}: three pages, every link once, in order (never-clicked links the oldest)`, async () => {
          const rank = await idRank();
          const key = (r: (typeof rows)[number]) => (sort === "created" ? r[1] : sort === "clicks" ? r[2] : (r[3] ?? 0));
          const sign = order === "desc" ? -1 : 1;
          const expected = [...rows].sort((a, b) => sign * (key(a) - key(b) || rank.get(ids.get(a[0])!)! - rank.get(ids.get(b[0])!)!)).map((r) => r[0]);
          const seen: string[] = [];
          let cursor: string | null = null;
          for (let page = 0; page < 3; page++) {
            const p = await list(c, `sort=${sort}&order=${order}&limit=3${cursor ? `&cursor=${cursor}` : ""}`);
            expect(p.total).toBe(8);
            expect(p.links).toHaveLength(page < 2 ? 3 : 2);
            seen.push(...p.links.map((l) => l.alias));
            cursor = p.next_cursor;
          }
          expect(cursor).toBeNull();
          expect(seen).toEqual(expected);
        });
      }
    }

    it("the defaults are created and desc; a cursor of another sort or order is refused, naming cursor", async () => {
      const byDefault = await list(c, "limit=3");
      expect(byDefault).toEqual(await list(c, "limit=3&sort=created&order=desc"));
      expect(byDefault.links.map((l) => l.alias)).toEqual(["sort-8", "sort-7", "sort-6"]);
      const clicks = await list(c, "sort=clicks&limit=3");
      expect(await refused(c, `cursor=${clicks.next_cursor}`)).toEqual(["cursor"]);
      expect(await refused(c, `sort=clicks&order=asc&cursor=${clicks.next_cursor}`)).toEqual(["cursor"]);
      expect(await refused(c, `sort=last_click&cursor=${clicks.next_cursor}`)).toEqual(["cursor"]);
      const second = await list(c, `sort=clicks&limit=3&cursor=${clicks.next_cursor}`);
      expect(second.links.map((l) => l.id)).toEqual((await list(c, "sort=clicks&limit=6")).links.slice(3).map((l) => l.id));
    });

    it("a cursor of the list before sorts (created_at:id) still reads as newest first", async () => {
      const rank = await idRank();
      const tied = ["sort-3", "sort-4"].sort((a, b) => rank.get(ids.get(b)!)! - rank.get(ids.get(a)!)!);
      const legacy = Buffer.from(`${T0 + 6}:${ids.get("sort-6")}`).toString("base64url");
      expect((await list(c, `cursor=${legacy}`)).links.map((l) => l.alias)).toEqual(["sort-5", ...tied, "sort-2", "sort-1"]);
    });
  });

  it(`tags on more than ${FROM_TAG_MAX} links: the sort's index walked, the same order, pages and totals`, async () => {
    const { client: c, id: ownerId } = await account();
    const big = await tag(c, "Big", []);
    const also = await tag(c, "Also", []);
    const db = server.ctx.storage.db;
    const rows = Array.from({ length: 2400 }, (_, i) => ({
      id: `many${engine}${String(i).padStart(5, "0")}x${(i * 7919) % 2400}`,
      domain: "",
      alias: `many-${i}`,
      url: `https://example.com/many/${i}`,
      owner_id: ownerId,
      click_count: i % 7,
      archived_at: i % 100 === 0 ? T0 : null,
      created_at: T0 + i,
      updated_at: T0 + i,
    }));
    for (let i = 0; i < rows.length; i += 400)
      await db
        .insertInto("links")
        .values(rows.slice(i, i + 400))
        .execute();
    const tagged = rows.flatMap((r, i) => [{ link_id: r.id, tag_id: big }, ...(i % 10 === 5 ? [] : [{ link_id: r.id, tag_id: also }])]);
    for (let i = 0; i < tagged.length; i += 500)
      await db
        .insertInto("link_tags")
        .values(tagged.slice(i, i + 500))
        .execute();
    // 2,160 links carry both tags; 24 of them are archived.
    const rank = new Map((await db.selectFrom("links").select("id").where("owner_id", "=", ownerId).orderBy("id").execute()).map((r, i) => [r.id, i]));
    const expected = rows
      .filter((r, i) => r.archived_at === null && i % 10 !== 5)
      .sort((a, b) => b.click_count - a.click_count || rank.get(b.id)! - rank.get(a.id)!)
      .map((r) => r.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 3; page++) {
      const p = await list(c, `tag=big&tag=also&sort=clicks&limit=100${cursor ? `&cursor=${cursor}` : ""}`);
      expect(p.total).toBe(2136);
      seen.push(...p.links.map((l) => l.id));
      cursor = p.next_cursor;
    }
    expect(seen).toEqual(expected.slice(0, 300));
    expect((await list(c, "tag=big")).total).toBe(2376);
    expect((await list(c, "tag=big&tag=also&state=active")).total).toBe(2136);
    const archived = await list(c, "tag=big&tag=also&state=archived&limit=100");
    expect([archived.total, archived.links.length, archived.links[0]!.alias]).toEqual([24, 24, "many-2300"]);
  });

  it("bad values: 400 invalid_request naming the field", async () => {
    const { client: c } = await account();
    const cases: [string, string][] = [
      ["sort=name", "sort"],
      ["order=up", "order"],
      ["state=deleted", "state"],
      ["state=blocked", "state"],
      ["has_password=maybe", "has_password"],
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["limit=two", "limit"],
      ["tag=", "tag.0"],
      ["color=red", "color"],
      ["cursor=%21%21%21", "cursor"],
      [`cursor=${Buffer.from("clicks.desc.abc.x").toString("base64url")}`, "cursor"],
      [`cursor=${"A".repeat(201)}`, "cursor"],
      [`domain=${"d".repeat(301)}`, "domain"],
    ];
    for (const [query, field] of cases) expect([query, await refused(c, query)]).toEqual([query, [field]]);
  });

  it("hostile: 50 tag parameters, a huge q, a forged cursor: 400, never 500", async () => {
    const { client: c } = await account();
    await link(c, "hostile-one");
    expect(await refused(c, Array.from({ length: 50 }, (_, i) => `tag=t${i}`).join("&"))).toEqual(["tag"]);
    expect((await list(c, Array.from({ length: 10 }, (_, i) => `tag=t${i}`).join("&"))).total).toBe(0);
    expect(await refused(c, `q=${"x".repeat(10_000)}`)).toEqual(["q"]);
    expect((await c.get(`/api/links?q=${"%25".repeat(500)}`)).status).toBe(200);
    for (const forged of ["created.desc.99999999999999999.x", "created.desc.1.x'--", "created.desc.-1.abc", "x".repeat(150)]) {
      expect(await refused(c, `cursor=${Buffer.from(forged).toString("base64url")}`)).toEqual(["cursor"]);
    }
  });

  it("members list the owner's links with the same filters and the owner's tags; strangers get 404", async () => {
    const owner = await account("business");
    const member = await account();
    const stranger = await account();
    await joinTeam(server, owner, member);
    const a = await link(owner.client, "team-a", { created_at: T0 + 1, click_count: 3 });
    const b = await link(owner.client, "team-b", { created_at: T0 + 2, click_count: 9, title: "Launch page" });
    await link(owner.client, "team-c", { created_at: T0 + 3, archived_at: T0 });
    await tag(owner.client, "Launch", [a, b]);
    // The member's own tag of that name is not the owner's.
    await tag(member.client, "Mine", []);
    await link(member.client, "member-own");
    const q = `owner=${owner.id}&tag=launch&sort=clicks&order=asc`;
    expect(await aliases(member.client, q)).toEqual([["team-a", "team-b"], 2]);
    expect(await aliases(member.client, `owner=${owner.id}&q=launch%20page`)).toEqual([["team-b"], 1]);
    expect(await aliases(member.client, `owner=${owner.id}&state=archived`)).toEqual([["team-c"], 1]);
    expect(await aliases(member.client, `owner=${owner.id}&tag=mine`)).toEqual([[], 0]);
    expect(await aliases(member.client, "tag=launch")).toEqual([[], 0]);
    expect((await stranger.client.get(`/api/links?${q}`)).status).toBe(404);
  });
});
