import { Client } from 'pg';
import { generateSecretKey } from '@bursar/crypto';
import { toolSettings } from '@bursar/dev-infra';
import { createTestDatabase, runScript, TestDatabase } from '@bursar/testing';

const settings = toolSettings({
  command: 'pnpm db:check',
  summary:
    "Each service's migrations on a scratch database, then plpgsql_check over every PL/pgSQL function they leave (trigger\n" +
    'functions with the table and transition tables of each trigger using them). Prints every finding and fails on any,\n' +
    'warnings included. Needs the plpgsql_check extension on the server (Debian: postgresql-15-plpgsql-check).',
  env: {
    TEST_DATABASE_URL: { help: 'PostgreSQL server the scratch databases go on', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

/** One function to check: plain, or a trigger function with the relation (and transition tables) of one trigger. */
interface Target {
  oid: number;
  name: string;
  is_trigger: boolean;
  tgoid: number | null;
  relid: string | null;
  oldtable: string | null;
  newtable: string | null;
}

interface Finding {
  name: string;
  lineno: number | null;
  level: string;
  message: string;
  detail: string | null;
  /** Where inside the statement: for a declaration's default, which variable (lineno is then the block's). */
  context: string | null;
}

/** A trigger function no trigger uses is listed with a null `tgoid`: it cannot be checked, and is reported. */
const TARGETS = `
  SELECT p.oid::int, p.oid::regprocedure::text AS name, p.prorettype = 'trigger'::regtype AS is_trigger, t.oid AS tgoid,
    t.tgrelid::regclass::text AS relid, t.tgoldtable AS oldtable, t.tgnewtable AS newtable
  FROM pg_proc p
  JOIN pg_namespace n ON n.oid = p.pronamespace
  JOIN pg_language l ON l.oid = p.prolang
  LEFT JOIN pg_trigger t ON t.tgfoid = p.oid AND NOT t.tgisinternal
  WHERE n.nspname = 'public' AND l.lanname = 'plpgsql'
    AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
  ORDER BY 2, 5`;

/*
 * Every warning class is on: other (unused variables, dead code, implicit casts), extra (unused
 * parameters, shadowing, never-read variables), performance (casts that defeat an index), security
 * (SQL injection in dynamic SQL) and compatibility (constructs whose meaning changed between
 * PostgreSQL versions). A false positive is silenced where it occurs, with an in-code pragma.
 */
const CHECK = `
  SELECT lineno, level, message, detail, context FROM plpgsql_check_function_tb($1::int::regprocedure, coalesce($2::regclass, 0),
    oldtable => $3, newtable => $4, fatal_errors => false, other_warnings => true, extra_warnings => true,
    performance_warnings => true, security_warnings => true, compatibility_warnings => true)`;

async function check(service: 'ledger' | 'control'): Promise<{ functions: number; findings: Finding[] }> {
  const db: TestDatabase = await createTestDatabase(`db_check_${service}`);
  const pg = new Client({ connectionString: db.url });
  try {
    const key = generateSecretKey();
    await runScript(`apps/${service}/src/migrate.ts`, [], {
      [`${service.toUpperCase()}_DATABASE_URL`]: db.url,
      [`${service.toUpperCase()}_SECRET_KEY`]: key,
      REDIS_URL: 'redis://127.0.0.1:6379',
    });
    await pg.connect();
    await pg.query('CREATE EXTENSION IF NOT EXISTS plpgsql_check');
    const targets = (await pg.query<Target>(TARGETS)).rows;
    const findings: Finding[] = [];
    for (const t of targets) {
      if (t.is_trigger && t.tgoid === null) {
        findings.push({ name: t.name, lineno: null, level: 'warning', message: 'trigger function that no trigger uses: not checked (drop it)', detail: null, context: null });
        continue;
      }
      const rows = (await pg.query<Omit<Finding, 'name'>>(CHECK, [t.oid, t.relid, t.oldtable, t.newtable])).rows;
      findings.push(...rows.map((r) => ({ name: t.relid ? `${t.name} on ${t.relid}` : t.name, ...r })));
    }
    return { functions: new Set(targets.map((t) => t.oid)).size, findings };
  } finally {
    await pg.end().catch(() => undefined);
    await db.drop();
  }
}

async function main(): Promise<void> {
  // createTestDatabase reads the server from TEST_DATABASE_URL.
  process.env.TEST_DATABASE_URL = settings.TEST_DATABASE_URL;
  const counts: string[] = [];
  let total = 0;
  for (const service of ['ledger', 'control'] as const) {
    const { functions, findings } = await check(service);
    for (const f of findings) {
      process.stdout.write(`${service}: ${f.name} line ${f.lineno ?? '-'}: ${f.level}: ${f.message}${f.detail ? ` (${f.detail})` : ''}${f.context ? ` [${f.context}]` : ''}\n`);
    }
    counts.push(`${service} ${functions} PL/pgSQL functions`);
    total += findings.length;
  }
  process.stdout.write(`db:check: ${counts.join(', ')} checked, ${total} findings\n`);
  process.exit(total > 0 ? 1 : 0);
}

main().catch((err: unknown) => {
  process.stderr.write(`db:check failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
