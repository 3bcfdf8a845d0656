import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';
import type { Logger } from 'pino';
import { LOGGER } from '@bursar/service-kit';
import { LedgerSettings } from '../config/ledger.settings';
import { OrganizationEntity } from './organization.entity';

/** The channel the organizations trigger notifies with the id of a row updated or deleted. */
const ORGANIZATION_CHANGED = 'organization_changed';
const RECONNECT_MS = 1000;

/**
 * Organization rows kept in memory while Postgres tells this process about every change to them
 * (LISTEN on the organizations trigger's channel, on a connection of its own): every
 * authenticated request needs its organization, and reading it each time cost a round trip. A
 * change (a suspension from the operator CLI, on any replica) drops the row as soon as its
 * transaction commits. Without the listening connection nothing is cached and every call reads.
 */
@Injectable()
export class OrganizationCache implements OnModuleInit, OnModuleDestroy {
  private readonly rows = new Map<string, OrganizationEntity>();
  private listener: Client | null = null;
  private listening = false;
  /** Bumped by every change and reconnect: a read that overlapped one is not cached. */
  private generation = 0;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly settings: LedgerSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    void this.listen();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    this.forget();
    await this.listener?.end().catch(() => undefined);
  }

  /** The cached row, else what `load` reads (remembered when no change overlapped the read). */
  async read(id: string, load: () => Promise<OrganizationEntity | null>): Promise<OrganizationEntity | null> {
    const cached = this.rows.get(id);
    if (cached) return cached;
    const generation = this.generation;
    const row = await load();
    if (row && this.listening && generation === this.generation) this.rows.set(id, row);
    return row;
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.settings.LEDGER_DATABASE_URL, application_name: 'bursar-ledger-listener' });
    this.listener = client;
    client.on('notification', (message) => {
      this.generation += 1;
      if (message.payload) this.rows.delete(message.payload);
    });
    // Logged, never thrown: 'end' follows and reconnects (an unheard 'error' would end the process).
    client.on('error', (err) => this.logger.warn({ err: err.message }, 'organization change listener lost its connection; reconnecting'));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${ORGANIZATION_CHANGED}`);
      if (this.listener === client) this.listening = true;
    } catch (err) {
      this.logger.warn({ err }, 'organization change listener could not connect; organizations are read on every request');
      await client.end().catch(() => undefined);
      this.lost(client);
    }
  }

  /** Changes may be missed from here on: drop everything and stop caching until listening again. */
  private lost(client: Client): void {
    if (this.listener !== client) return;
    this.listener = null;
    this.forget();
    if (!this.stopped) this.retry = setTimeout(() => void this.listen(), RECONNECT_MS).unref();
  }

  private forget(): void {
    this.listening = false;
    this.generation += 1;
    this.rows.clear();
  }
}
