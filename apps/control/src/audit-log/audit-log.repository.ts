import type { EntityManager } from 'typeorm';

export interface LoggedWorkspace {
  id: string;
  slug: string;
  deleted: boolean;
}

/** The workspaces whose logs `control:admin verify-log` checks: the live one with this slug, or every one (deleted ones keep their log). */
export function workspacesToVerify(em: EntityManager, slug?: string): Promise<LoggedWorkspace[]> {
  return em.query(
    `SELECT id, slug, deleted_at IS NOT NULL AS deleted FROM workspaces
      WHERE $1::text IS NULL OR (slug = $1 AND deleted_at IS NULL) ORDER BY created_at, id`,
    [slug ?? null],
  );
}
