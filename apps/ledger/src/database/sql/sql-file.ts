import { sqlFiles } from '@bursar/service-kit';

/** This folder's .sql files: each function's one body, applied by the migrations that create or change it. */
export const sqlFile = sqlFiles(__dirname);
