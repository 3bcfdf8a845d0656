import { TenancyAndClients1763700000000 } from './1763700000000-tenancy-and-clients';

/** Every ledger migration, in order. TypeORM records applied ones in `schema_migrations`. */
export const ledgerMigrations = [TenancyAndClients1763700000000];
