import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { PolicySnapshot } from '../policies/policy-compiler';

export interface PolicyVersion {
  id: string;
  rules: PolicySnapshot[];
  created_at: Date;
  first_used_at: Date;
}

/** A version to store with the first decision made under it. */
export interface NewPolicyVersion {
  id: string;
  rules: PolicySnapshot[];
}

/** Stores a version unless the workspace has it: rows are immutable, so a second writer changes nothing. */
export const INSERT_POLICY_VERSION = `INSERT INTO policy_versions (workspace_id, id, rules) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`;

@Injectable()
export class PolicyVersionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(workspaceId: string, id: string, em: EntityManager = this.dataSource.manager): Promise<PolicyVersion | null> {
    const [row] = (await em.query(`SELECT id, rules, created_at, first_used_at FROM policy_versions WHERE workspace_id = $1 AND id = $2`, [workspaceId, id])) as PolicyVersion[];
    return row ?? null;
  }

  async insert(em: EntityManager, workspaceId: string, version: NewPolicyVersion): Promise<void> {
    await em.query(INSERT_POLICY_VERSION, [workspaceId, version.id, JSON.stringify(version.rules)]);
  }
}
