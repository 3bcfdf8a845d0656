import { DataSource } from 'typeorm';
import { CosignKeysRepository } from '../cosign/cosign-keys.repository';
import { CosignKeysService, CosignKeysSettings } from '../cosign/cosign-keys.service';

export const ADMIN_USAGE = ['usage: pnpm control:admin <command>', '  rotate-cosign-key   new cosigning key, published at once, signing from activates_at (COSIGN_KEY_ACTIVATION_DELAY_MS later); retired keys stay published'].join('\n');

/** Raised for a bad command line; the entry point prints it with the usage. */
export class AdminUsageError extends Error {}

/** Runs one operator command against a migrated database and returns what to print as JSON. */
export async function runControlAdmin(argv: string[], dataSource: DataSource, settings: CosignKeysSettings): Promise<Record<string, unknown>> {
  switch (argv[0]) {
    case 'rotate-cosign-key': {
      const keys = new CosignKeysService(dataSource, new CosignKeysRepository(dataSource), settings);
      const created = await keys.rotate();
      return {
        kid: created.kid,
        created_at: created.created_at.toISOString(),
        activates_at: created.activates_at.toISOString(),
        published: (await keys.publishedKids()).length,
      };
    }
    default:
      throw new AdminUsageError(argv[0] ? `unknown command ${argv[0]}` : 'a command is required');
  }
}
