import 'reflect-metadata';
import { Body, Controller, Get, HttpCode, Inject, Module, OnModuleDestroy, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { StatementBatcher } from '@bursar/service-kit';

/*
 * The floor of the fixed stack on this machine, for `pnpm bench:floor`: Nest on Express with no
 * guard, pipe, interceptor, validation, logging or metrics, doing the least any transfer or
 * decision must do. A transfer counts one rate-limit hit in Redis, then BEGIN with a locking read
 * of its two balance rows, one statement inserting the transaction and its postings and moving the
 * balances, and COMMIT (durable). A decision counts its hit, reads one row and inserts one audit
 * row. Nothing here is used by the services.
 */

const POOL = 'POOL';
const REDIS = 'REDIS';

const TRANSFER = `WITH t AS (INSERT INTO floor_transactions (id) VALUES (DEFAULT) RETURNING id),
  p AS (INSERT INTO floor_postings (transaction_id, account, amount)
        SELECT t.id, x.account, x.amount FROM t, unnest($1::text[], $2::bigint[]) AS x(account, amount) RETURNING 1)
  UPDATE floor_balances b SET balance = b.balance + x.amount
    FROM unnest($1::text[], $2::bigint[]) AS x(account, amount) WHERE b.account = x.account RETURNING b.account, b.balance`;

@Controller()
class FloorController {
  // Group execution as the services do it (what arrives while a statement is in flight goes out together in the next one).
  private readonly reads = new StatementBatcher<string, string | null>(async (accounts) => {
    const { rows } = await this.pool.query({ name: 'budgets', text: 'SELECT account, balance FROM floor_balances WHERE account = ANY($1)', values: [accounts] });
    const found = new Map(rows.map((r: { account: string; balance: string }) => [r.account, r.balance]));
    return accounts.map((a) => found.get(a) ?? null);
  });

  private readonly audits = new StatementBatcher<string, void>(async (snapshots) => {
    await this.pool.query({ name: 'audits', text: 'INSERT INTO floor_audit (snapshot) SELECT unnest($1::jsonb[])', values: [snapshots] });
    return snapshots.map(() => undefined);
  });

  constructor(
    @Inject(POOL) private readonly pool: Pool,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  @Get('healthz')
  health() {
    return { status: 'ok' };
  }

  @Get('bare')
  bare() {
    return { ok: true };
  }

  @Post('transfer')
  @HttpCode(201)
  async transfer(@Body() body: { from: string; to: string; amount: number }) {
    await this.redis.incr('floor:rate');
    const client = await this.pool.connect();
    try {
      const ordered = [body.from, body.to].sort();
      await client.query(
        `BEGIN; SELECT account, balance FROM floor_balances WHERE account IN (${ordered.map((a) => `'${a.replace(/'/g, "''")}'`).join(',')}) ORDER BY account FOR UPDATE`,
      );
      const written = await client.query({ name: 'transfer', text: TRANSFER, values: [[body.from, body.to], [-body.amount, body.amount]] });
      await client.query('COMMIT');
      return { data: { object: 'transaction', balances: written.rows } };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  @Post('decide-batched')
  @HttpCode(200)
  async decideBatched(@Body() body: { agent: string; amount: number }) {
    await this.redis.incr('floor:rate');
    const decision = { outcome: 'allowed', amount: body.amount, headroom: await this.reads.submit(body.agent) };
    await this.audits.submit(JSON.stringify(decision));
    return { data: decision };
  }

  @Post('decide')
  @HttpCode(200)
  async decide(@Body() body: { agent: string; amount: number }) {
    await this.redis.incr('floor:rate');
    const { rows } = await this.pool.query({ name: 'budget', text: 'SELECT balance FROM floor_balances WHERE account = $1', values: [body.agent] });
    const decision = { outcome: 'allowed', amount: body.amount, headroom: rows[0]?.balance ?? null };
    await this.pool.query({ name: 'audit', text: 'INSERT INTO floor_audit (snapshot) VALUES ($1)', values: [JSON.stringify(decision)] });
    return { data: decision };
  }
}

@Module({
  controllers: [FloorController],
  providers: [
    { provide: POOL, useFactory: () => new Pool({ connectionString: process.env.FLOOR_DATABASE_URL, max: 10 }) },
    { provide: REDIS, useFactory: () => new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableAutoPipelining: true }) },
  ],
})
class FloorModule implements OnModuleDestroy {
  constructor(
    @Inject(POOL) private readonly pool: Pool,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async onModuleDestroy() {
    await this.pool.end();
    this.redis.disconnect();
  }
}

async function main() {
  const app = await NestFactory.create(FloorModule, { logger: false });
  app.enableShutdownHooks();
  await app.listen(Number(process.env.FLOOR_PORT), '127.0.0.1');
}

void main();
