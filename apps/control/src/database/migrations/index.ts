import { AccessLayer1763800000000 } from './1763800000000-access-layer';

/** Every control migration, in order. TypeORM records applied ones in `schema_migrations`. */
export const controlMigrations = [AccessLayer1763800000000];
