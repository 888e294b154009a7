// Bio pages (docs/bio-pages.md): an account's link-in-bio pages, at /{slug} on the main host or one of its verified
// custom domains. A slug and an alias never collide on a host: a page's write checks the links there in its own
// transaction, and a link's write checks the pages (links/alias-reservations.ts), each under the address's lock. Each
// button is a link of the same account; the page's own views are counted by bio-cache.ts. Pages act on the caller's
// own account (no ?owner=).
import {
  type BioBlock,
  type BioPage,
  type CreateBioPageInput,
  MAX_BIO_BLOCKS,
  MAX_BIO_DESCRIPTION,
  MAX_BIO_PAGES_PER_OWNER,
  MAX_BIO_TITLE,
  type UpdateBioPageInput,
} from "../contract/bio-pages.js";
import { ALIAS_RE, MESSAGES } from "../contract/form-rules.js";
import { requireCapability } from "../accounts/plans.js";
import { isReservedAlias } from "../links/reserved.js";
import { shortUrl } from "../links/public-link.js";
import { iso, type Clock } from "../shared/clock.js";
import { DomainError, type FieldError } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import type { Db } from "../storage/db.js";
import { type OwnerCaps, type Trx, countOf } from "../storage/owner-caps.js";
import type { BioPageRow, UserRow } from "../storage/schema.js";
import { isUniqueViolation } from "../storage/unique-violation.js";
import type { BioChanges } from "./bio-changes.js";
import type { BioCache } from "./bio-cache.js";
import type { LinkService } from "../links/links.js";
import type { KeyFolders } from "../links/key-folders.js";
import { type StoredBlock, blocksOf, checkBlocks, checkText, colorsOf, urlProblem } from "./bio-blocks.js";

export interface BioPageDeps {
  db: Db;
  caps: OwnerCaps;
  clock: Clock;
  /** BASE_URL's origin: the pages' and buttons' addresses. */
  origin: string;
  changes: BioChanges;
  cache: Pick<BioCache, "unwritten">;
  /** The links' click counts as every read shows them (clicks held back from the roll-ups included). */
  links: Pick<LinkService, "withCurrentCounts">;
}

const notFound = () => new DomainError("not_found", "No such bio page");

/** The refusal of a slug in use on its host, by a link's alias or another page (the code a taken alias gets). */
function slugTaken(slug: string): DomainError {
  return new DomainError("alias_taken", `"${slug}" is already taken on this host; choose another slug`, [
    { field: "slug", message: "is already an alias or a bio page on this host" },
  ]);
}

function problems(details: FieldError[]): DomainError {
  return new DomainError("invalid_request", details.map((d) => `${d.field}: ${d.message}`).join("; "), details);
}

/** A page's fields as stored: everything the form gave, checked together. */
type Fields = Pick<BioPageRow, "slug" | "domain" | "title" | "description" | "picture_url" | "theme" | "colors" | "blocks">;

export class BioPageService {
  constructor(private readonly deps: BioPageDeps) {}

  /**
   * The account's pages, newest first. `folders` (every method's): an API key limited to folders sees only the
   * pages whose buttons all open links in its folders, and gives them no other buttons (links/key-folders.ts).
   */
  async list(actor: UserRow, folders: KeyFolders = null): Promise<BioPage[]> {
    const rows = await this.deps.db.selectFrom("bio_pages").selectAll().where("owner_id", "=", actor.id).orderBy("created_at", "desc").orderBy("id").execute();
    const hidden = await this.outsideFolders(rows, folders);
    return this.present(rows.filter((r) => !hidden.has(r.id)));
  }

  async get(actor: UserRow, id: string, folders: KeyFolders = null): Promise<BioPage> {
    const [page] = await this.present([await this.own(actor, id, folders)]);
    return page!;
  }

  async create(actor: UserRow, input: CreateBioPageInput, folders: KeyFolders = null): Promise<BioPage> {
    requireCapability(actor.plan, "bio_pages", "Bio pages");
    const fields = await this.check(actor, input, null, folders);
    const now = this.deps.clock.now();
    const row: BioPageRow = { id: newId(), owner_id: actor.id, ...fields, views: 0, created_at: now, updated_at: now };
    const cap = {
      limit: MAX_BIO_PAGES_PER_OWNER,
      count: (trx: Trx) =>
        countOf(
          trx
            .selectFrom("bio_pages")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("owner_id", "=", actor.id),
        ),
      refuse: () => new DomainError("limit_reached", `An account has at most ${MAX_BIO_PAGES_PER_OWNER} bio pages; delete one first`),
    };
    await this.write(row.slug, () =>
      this.deps.caps.add(actor.id, cap, async (trx) => {
        await trx.insertInto("bio_pages").values(row).execute();
        await this.refuseAlias(trx, row.domain, row.slug);
      }),
    );
    await this.deps.changes.publish([{ domain: row.domain, slug: row.slug }]);
    return (await this.present([row]))[0]!;
  }

  async update(actor: UserRow, id: string, input: UpdateBioPageInput, folders: KeyFolders = null): Promise<BioPage> {
    requireCapability(actor.plan, "bio_pages", "Bio pages");
    const before = await this.own(actor, id, folders);
    const fields = await this.check(actor, input, before, folders);
    const after: BioPageRow = { ...before, ...fields, updated_at: this.deps.clock.now() };
    const moved = after.domain !== before.domain || after.slug !== before.slug;
    await this.write(after.slug, () =>
      this.deps.db.transaction().execute(async (trx) => {
        await trx
          .updateTable("bio_pages")
          .set({ ...fields, updated_at: after.updated_at })
          .where("id", "=", id)
          .execute();
        if (moved) await this.refuseAlias(trx, after.domain, after.slug);
      }),
    );
    const keys = [{ domain: before.domain, slug: before.slug }];
    if (moved) keys.push({ domain: after.domain, slug: after.slug });
    await this.deps.changes.publish(keys);
    return (await this.present([after]))[0]!;
  }

  async delete(actor: UserRow, id: string, folders: KeyFolders = null): Promise<void> {
    const row = await this.own(actor, id, folders);
    await this.deps.db.deleteFrom("bio_pages").where("id", "=", id).execute();
    await this.deps.changes.publish([{ domain: row.domain, slug: row.slug }]);
  }

  private async own(actor: UserRow, id: string, folders: KeyFolders): Promise<BioPageRow> {
    const row = await this.deps.db.selectFrom("bio_pages").selectAll().where("id", "=", id).where("owner_id", "=", actor.id).executeTakeFirst();
    if (!row || (await this.outsideFolders([row], folders)).size > 0) throw notFound();
    return row;
  }

  /** The ids of the pages with a button to a link outside `folders` (a deleted link's button shows nothing of it). */
  private async outsideFolders(rows: BioPageRow[], folders: KeyFolders): Promise<Set<string>> {
    if (folders === null) return new Set();
    const ids = [...new Set(rows.flatMap((r) => blocksOf(r.blocks).flatMap((b) => (b.type === "link" ? [b.link_id] : []))))];
    const links = ids.length === 0 ? [] : await this.deps.db.selectFrom("links").select(["id", "folder_id"]).where("id", "in", ids).execute();
    const outside = new Set(links.filter((l) => l.folder_id === null || !folders.includes(l.folder_id)).map((l) => l.id));
    return new Set(rows.filter((r) => blocksOf(r.blocks).some((b) => b.type === "link" && outside.has(b.link_id))).map((r) => r.id));
  }

  /** A unique (domain, slug) violation is another page there: the same refusal as an alias in use. */
  private async write(slug: string, run: () => Promise<unknown>): Promise<void> {
    try {
      await run();
    } catch (err) {
      if (isUniqueViolation(err)) throw slugTaken(slug);
      throw err;
    }
  }

  /**
   * After the page's write, in its transaction: a link at the same host and alias, or an alias a deleted link left
   * reserved for its owner (another account), refuses the slug. The link side checks the pages after its own write;
   * both look under the address's lock, so that of two writes at once the second sees the first (owner-caps.ts).
   */
  private async refuseAlias(trx: Trx, domain: string, slug: string): Promise<void> {
    await this.deps.caps.holdNames(trx, [{ domain, name: slug }]);
    const link = await trx.selectFrom("links").select("id").where("domain", "=", domain).where("alias", "=", slug).executeTakeFirst();
    if (link) throw slugTaken(slug);
    const held = await trx.selectFrom("alias_reservations").select("owner_id").where("domain", "=", domain).where("alias", "=", slug).executeTakeFirst();
    if (held) throw slugTaken(slug);
  }

  /** Every field given, checked together (each wrong field named in details); absent fields keep `before`'s. */
  private async check(actor: UserRow, input: UpdateBioPageInput, before: BioPageRow | null, folders: KeyFolders): Promise<Fields> {
    const details: FieldError[] = [];
    const note = (field: string, message: string) => message && details.push({ field, message });
    const slug = input.slug ?? before?.slug ?? "";
    if (input.slug !== undefined) {
      if (!ALIAS_RE.test(input.slug)) note("slug", MESSAGES.alias);
      else if (isReservedAlias(input.slug)) note("slug", `"${input.slug}" is reserved; choose another slug`);
    }
    const title = input.title ?? before?.title ?? "";
    if (input.title !== undefined) note("title", checkText(input.title, MAX_BIO_TITLE, false));
    let description = input.description === undefined ? (before?.description ?? null) : input.description;
    if (description !== null) {
      description = description.trim() === "" ? null : description;
      if (description !== null) note("description", checkText(description, MAX_BIO_DESCRIPTION, true));
    }
    const picture = input.picture_url === undefined ? (before?.picture_url ?? null) : input.picture_url?.trim() || null;
    if (input.picture_url && picture !== null) note("picture_url", urlProblem(picture));
    const theme = input.theme ?? before?.theme ?? "auto";
    const colors = input.colors === undefined ? (before ? colorsOf(before.colors) : null) : input.colors;
    if (theme === "custom" && colors === null) note("colors", "give the custom theme's colours");
    let blocks: StoredBlock[] = before ? blocksOf(before.blocks) : [];
    if (input.blocks !== undefined) {
      if (input.blocks.length > MAX_BIO_BLOCKS) note("blocks", `at most ${MAX_BIO_BLOCKS} blocks`);
      const checked = checkBlocks(input.blocks);
      details.push(...checked.problems);
      blocks = checked.blocks;
      details.push(...(await this.foreignLinks(actor.id, blocks, folders)));
    }
    const domain = input.domain_id === undefined ? (before?.domain ?? "") : await this.domainOf(actor.id, input.domain_id, details);
    if (details.length > 0) throw problems(details);
    return {
      slug,
      domain,
      title: title.trim(),
      description: description?.trim() ?? null,
      picture_url: picture,
      theme,
      colors:
        colors === null ? null : JSON.stringify({ background: colors.background, text: colors.text, button: colors.button, button_text: colors.button_text }),
      blocks: JSON.stringify(blocks),
    };
  }

  /** The link blocks whose link is not one of the account's (or not in the key's folders): one problem each. */
  private async foreignLinks(ownerId: string, blocks: StoredBlock[], folders: KeyFolders): Promise<FieldError[]> {
    const ids = [...new Set(blocks.flatMap((b) => (b.type === "link" ? [b.link_id] : [])))];
    if (ids.length === 0) return [];
    const own = await this.deps.db.selectFrom("links").select(["id", "folder_id"]).where("id", "in", ids).where("owner_id", "=", ownerId).execute();
    const mine = new Set(own.filter((l) => folders === null || (l.folder_id !== null && folders.includes(l.folder_id))).map((l) => l.id));
    const message = folders === null ? "is not a link of this account" : "is not a link in this API key's folders";
    return blocks.flatMap((b, i) => (b.type === "link" && !mine.has(b.link_id) ? [{ field: `blocks[${i}].link_id`, message }] : []));
  }

  /** The host a page at `domainId` lives on: "" for null, else a verified custom domain of the account. */
  private async domainOf(ownerId: string, domainId: string | null, details: FieldError[]): Promise<string> {
    if (domainId === null) return "";
    const d = await this.deps.db
      .selectFrom("domains")
      .select(["hostname", "status"])
      .where("id", "=", domainId)
      .where("owner_id", "=", ownerId)
      .executeTakeFirst();
    if (!d || d.status !== "verified") {
      details.push({ field: "domain_id", message: "is not a verified domain of this account" });
      return "";
    }
    return d.hostname;
  }

  /** Pages as answered: each button's short URL and clicks, the page's views (this instance's unwritten ones too). */
  private async present(rows: BioPageRow[]): Promise<BioPage[]> {
    const { db, origin, cache } = this.deps;
    const ids = [...new Set(rows.flatMap((r) => blocksOf(r.blocks).flatMap((b) => (b.type === "link" ? [b.link_id] : []))))];
    const hosts = [...new Set(rows.map((r) => r.domain).filter((d) => d !== ""))];
    const links = ids.length === 0 ? [] : await this.deps.links.withCurrentCounts(await db.selectFrom("links").selectAll().where("id", "in", ids).execute());
    const domains = hosts.length === 0 ? [] : await db.selectFrom("domains").select(["id", "hostname"]).where("hostname", "in", hosts).execute();
    const domainIds = new Map(domains.map((d) => [d.hostname, d.id]));
    return rows.map((r) => {
      const byId = new Map(links.filter((l) => l.owner_id === r.owner_id).map((l) => [l.id, l]));
      const blocks: BioBlock[] = blocksOf(r.blocks).map((b) => {
        if (b.type !== "link") return b;
        const l = byId.get(b.link_id);
        return { ...b, short_url: l ? shortUrl(origin, l.domain, l.alias) : null, clicks: l ? Number(l.click_count) : 0 };
      });
      return {
        id: r.id,
        slug: r.slug,
        domain_id: r.domain === "" ? null : (domainIds.get(r.domain) ?? null),
        domain: r.domain === "" ? null : r.domain,
        url: shortUrl(origin, r.domain, r.slug),
        title: r.title,
        description: r.description,
        picture_url: r.picture_url,
        theme: r.theme as BioPage["theme"],
        colors: colorsOf(r.colors),
        blocks,
        views: Number(r.views) + cache.unwritten(r.id),
        clicks: blocks.reduce((n, b) => n + (b.type === "link" ? b.clicks : 0), 0),
        created_at: iso(Number(r.created_at)),
        updated_at: iso(Number(r.updated_at)),
      };
    });
  }
}
