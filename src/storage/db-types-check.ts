// Holds schema.ts's hand-written row types to the migrated databases (db-columns.ts, `npm run db:types`): the
// type check fails, naming the table and column, when a table or column is in one and not the other, when
// nullability or the kind of value (number, string, Buffer) differs, or when a column an insert may leave out
// (Generated<>) has no default. The row types keep what the database cannot say: string unions, Generated<>.
import type { Insertable, Selectable } from "kysely";
import type { DbColumns } from "./db-columns.js";
import type { Database } from "./schema.js";

interface TsKinds {
  number: number;
  string: string;
  Buffer: Buffer;
}

interface ColumnFacts {
  readonly ts: keyof TsKinds;
  readonly nullable: boolean;
  readonly defaulted: boolean;
}

type Each<U> = U[keyof U];

type ColumnProblem<Name extends string, Row, C extends keyof Selectable<Row> & keyof Insertable<Row>, F extends ColumnFacts> =
  | ((null extends Selectable<Row>[C] ? true : false) extends F["nullable"]
      ? never
      : `${Name}: ${F["nullable"] extends true ? "nullable in the database, not in the row type" : "nullable in the row type, not in the database"}`)
  | (NonNullable<Selectable<Row>[C]> extends TsKinds[F["ts"]] ? never : `${Name}: the database holds a ${F["ts"]}, the row type another type`)
  | (undefined extends Insertable<Row>[C]
      ? null extends Selectable<Row>[C]
        ? never
        : F["defaulted"] extends true
          ? never
          : `${Name}: Generated<> in the row type, but the database has no default`
      : never);

type TableProblems<T extends string, Row, Cols> =
  | Each<{ [C in Exclude<keyof Cols, keyof Row> & string]: `${T}.${C}: a column of the database, missing from the row type` }>
  | Each<{ [C in Exclude<keyof Row, keyof Cols> & string]: `${T}.${C}: in the row type, not a column of the database` }>
  | Each<{
      [C in keyof Cols & keyof Selectable<Row> & keyof Insertable<Row> & string]: Cols[C] extends ColumnFacts
        ? ColumnProblem<`${T}.${C}`, Row, C, Cols[C]>
        : never;
    }>;

/** Every difference between a Database type and a db-columns.ts description, one message each (never: none). */
export type SchemaProblems<DB, Cols> =
  | `${Exclude<keyof Cols, keyof DB> & string}: a table of the database, missing from Database`
  | `${Exclude<keyof DB, keyof Cols> & string}: in Database, not a table of the database`
  | Each<{ [T in keyof DB & keyof Cols & string]: TableProblems<T, DB[T], Cols[T]> }>;

type Holds<T extends true> = T;

/** Fails to compile, listing SchemaProblems, while schema.ts and db-columns.ts differ. */
export type SchemaMatchesMigrations = Holds<[SchemaProblems<Database, DbColumns>] extends [never] ? true : SchemaProblems<Database, DbColumns>>;
