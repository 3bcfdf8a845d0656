import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An endpoint may name its own delivery header prefix (`<brand>-Signature`, ...), so one receiver
 * written for another product's header names keeps working; null keeps the service's WEBHOOK_BRAND.
 */
export class WebhookEndpointHeaderBrand1763890019000 implements MigrationInterface {
  name = 'WebhookEndpointHeaderBrand1763890019000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_endpoints ADD COLUMN header_brand text CHECK (header_brand ~ '^[A-Za-z][A-Za-z0-9]{0,31}$')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_endpoints DROP COLUMN header_brand`);
  }
}
