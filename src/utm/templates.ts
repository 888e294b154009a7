// An owner's UTM templates (docs/api.md, UTM templates): saved utm_* values the link form fills its UTM
// builder from. Members of an owner's team use the owner's templates: they list them and save new ones;
// only the owner deletes them (as with tags).
import { MAX_UTM_TEMPLATE_NAME, MAX_UTM_VALUE, UTM_PARAMS, type CreateUtmTemplateInput, type UtmParam, type UtmTemplate } from "../contract/utm.js";
import { iso, type Clock } from "../shared/clock.js";
import { DomainError, FieldChecks, invalid } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import type { Db } from "../storage/db.js";
import { type OwnerCaps, type Trx, countOf } from "../storage/owner-caps.js";
import type { UserRow, UtmTemplatesTable } from "../storage/schema.js";
import { isUniqueViolation } from "../storage/unique-violation.js";
import { managedOwner, ownerAccess, requireMay } from "../teams/access.js";

/** Templates one account may hold (docs/api.md, Limits). */
export const MAX_UTM_TEMPLATES_PER_OWNER = 100;

export interface UtmTemplateDeps {
  db: Db;
  caps: OwnerCaps;
  clock: Clock;
}

const CONTROL = /[\u0000-\u001f\u007f]/;

/** A name as stored: trimmed, inner runs of spaces made one; refused when empty, too long or with control characters. */
function templateName(raw: string): string {
  const name = raw.trim().replace(/\s+/g, " ");
  if (name === "") throw invalid("name", "Enter a name for the template");
  if ([...name].length > MAX_UTM_TEMPLATE_NAME) throw invalid("name", `A template name has at most ${MAX_UTM_TEMPLATE_NAME} characters`);
  if (CONTROL.test(name)) throw invalid("name", "A template name cannot hold control characters");
  return name;
}

/** A parameter's value as stored: trimmed, null when empty. */
function utmValue(raw: string | null | undefined, field: UtmParam): string | null {
  const value = raw?.trim() ?? "";
  if (value === "") return null;
  if ([...value].length > MAX_UTM_VALUE) throw invalid(field, `Use at most ${MAX_UTM_VALUE} characters`);
  if (CONTROL.test(value)) throw invalid(field, "Remove the control characters");
  return value;
}

const collator = new Intl.Collator("en", { sensitivity: "base", numeric: true });

function toTemplate(row: UtmTemplatesTable): UtmTemplate {
  const out: UtmTemplate = {
    id: row.id,
    name: row.name,
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
    utm_term: null,
    utm_content: null,
    created_at: iso(Number(row.created_at)),
  };
  for (const p of UTM_PARAMS) out[p] = row[p];
  return out;
}

const taken = (name: string) =>
  new DomainError("conflict", `You already have a UTM template named "${name}"`, [
    { field: "name", message: "This name is taken by another of your templates" },
  ]);

const tooMany = () => new DomainError("limit_reached", `An account has at most ${MAX_UTM_TEMPLATES_PER_OWNER} UTM templates; delete some first`);

export class UtmTemplateService {
  constructor(private readonly deps: UtmTemplateDeps) {}

  /** The owner's templates in name order (at most MAX_UTM_TEMPLATES_PER_OWNER). */
  async list(actor: UserRow, ownerId?: string): Promise<UtmTemplate[]> {
    const { owner } = await managedOwner(this.deps.db, actor, ownerId);
    const rows = await this.deps.db.selectFrom("utm_templates").selectAll().where("owner_id", "=", owner.id).execute();
    // In the reader's alphabetical order on either engine (the databases' collations differ).
    return rows.map(toTemplate).sort((a, b) => collator.compare(a.name, b.name));
  }

  async create(actor: UserRow, input: CreateUtmTemplateInput, ownerId?: string): Promise<UtmTemplate> {
    const { owner } = await managedOwner(this.deps.db, actor, ownerId, "links.edit");
    const checks = new FieldChecks();
    const name = checks.run(() => templateName(input.name));
    const values = Object.fromEntries(UTM_PARAMS.map((p) => [p, checks.run(() => utmValue(input[p], p)) ?? null])) as Record<UtmParam, string | null>;
    checks.throwIfAny();
    if (UTM_PARAMS.every((p) => values[p] === null)) throw invalid("utm_source", "Fill in at least one UTM parameter");
    const row: UtmTemplatesTable = {
      id: newId(),
      owner_id: owner.id,
      name: name!,
      name_key: name!.toLowerCase(),
      ...values,
      created_at: this.deps.clock.now(),
    };
    const cap = {
      limit: MAX_UTM_TEMPLATES_PER_OWNER,
      count: (trx: Trx) =>
        countOf(
          trx
            .selectFrom("utm_templates")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("owner_id", "=", owner.id),
        ),
      refuse: tooMany,
    };
    try {
      await this.deps.caps.add(owner.id, cap, (trx) => trx.insertInto("utm_templates").values(row).execute());
    } catch (err) {
      if (isUniqueViolation(err)) throw taken(row.name);
      throw err;
    }
    return toTemplate(row);
  }

  /** Deletes one of the owner's templates: labels.manage (owner, admin; members and viewers get forbidden, anyone else not_found). */
  async delete(actor: UserRow, id: string): Promise<void> {
    const row = await this.deps.db.selectFrom("utm_templates").select(["id", "owner_id"]).where("id", "=", id).executeTakeFirst();
    if (!row) throw new DomainError("not_found", "No such UTM template");
    requireMay(await ownerAccess(this.deps.db, actor, row.owner_id), "labels.manage", "No such UTM template");
    await this.deps.db.deleteFrom("utm_templates").where("id", "=", id).execute();
  }
}
