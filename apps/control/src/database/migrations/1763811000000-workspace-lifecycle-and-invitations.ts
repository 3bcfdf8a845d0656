import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deleted workspaces stay as rows (their audit log is append-only and points at them) but free
 * their slug; invitations keep only a digest of their one-time token.
 */
export class WorkspaceLifecycleAndInvitations1763811000000 implements MigrationInterface {
  name = 'WorkspaceLifecycleAndInvitations1763811000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workspaces ADD COLUMN deleted_at timestamptz`);
    await q.query(`ALTER TABLE workspaces DROP CONSTRAINT workspaces_slug_key`);
    await q.query(`CREATE UNIQUE INDEX workspaces_slug_key ON workspaces (slug) WHERE deleted_at IS NULL`);
    await q.query(`
      CREATE TABLE workspace_invitations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id),
        email text NOT NULL CHECK (length(email) BETWEEN 3 AND 320),
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
        token_digest text NOT NULL UNIQUE,
        status text NOT NULL CHECK (status IN ('open', 'accepted', 'revoked')),
        invited_by_sub text NOT NULL,
        accepted_by_sub text,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One open invitation per address: a new one replaces the old in the same transaction.
    await q.query(`
      CREATE UNIQUE INDEX workspace_invitations_one_open ON workspace_invitations (workspace_id, lower(email))
        WHERE status = 'open'`);
    await q.query(`CREATE INDEX workspace_invitations_by_workspace ON workspace_invitations (workspace_id, created_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE workspace_invitations`);
    await q.query(`DROP INDEX workspaces_slug_key`);
    await q.query(`ALTER TABLE workspaces ADD CONSTRAINT workspaces_slug_key UNIQUE (slug)`);
    await q.query(`ALTER TABLE workspaces DROP COLUMN deleted_at`);
  }
}
