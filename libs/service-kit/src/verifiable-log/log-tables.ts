import { sqlFiles } from '../database/sql-file';

/** The DDL of a service's log tables, the same in every service's database; run by its migration. */
export const verifiableLogTablesSql = (): string => sqlFiles(__dirname)('verifiable-log-tables.sql');
