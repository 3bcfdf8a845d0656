/** Every ledger migration, in order. TypeORM records applied ones in `schema_migrations`. */
export const ledgerMigrations = [];
