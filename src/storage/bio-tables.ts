// Bio pages (docs/bio-pages.md, migration 057).
import type { Selectable } from "kysely";

export interface BioPagesTable {
  id: string;
  owner_id: string;
  /** The host as links.domain spells it: "" for the main host, else a custom domain's hostname. */
  domain: string;
  slug: string;
  title: string;
  description: string | null;
  picture_url: string | null;
  /** auto | light | dark | custom */
  theme: string;
  /** JSON object of the custom theme's colours, or null. */
  colors: string | null;
  /** JSON array of blocks (contract/bio-pages.ts). */
  blocks: string;
  views: number;
  created_at: number;
  updated_at: number;
}

export type BioPageRow = Selectable<BioPagesTable>;

export interface BioTables {
  bio_pages: BioPagesTable;
}
