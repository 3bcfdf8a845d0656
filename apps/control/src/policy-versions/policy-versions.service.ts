import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { notFound } from '../common/control-errors';
import type { LoadedPolicies } from '../policies/policy-engine.service';
import { NO_POLICY_VERSION } from '../policies/policy-snapshot';
import { NewPolicyVersion, PolicyVersion, PolicyVersionsRepository } from './policy-versions.repository';

/** Versions this process knows stored, per workspace; beyond this many the oldest is written again (harmlessly). */
const KNOWN_SIZE = 10_000;

/**
 * Keeps every policy version a decision was made under. The authorization hot path asks
 * `unrecorded` (a set lookup) and writes the version only the first time this process decides under
 * it in the workspace; `recorded` is called once that write committed.
 */
@Injectable()
export class PolicyVersionsService {
  private readonly known = new Set<string>();

  constructor(private readonly versions: PolicyVersionsRepository) {}

  /** The version to store with this decision, or null when it is stored already (or there is none). */
  unrecorded(workspaceId: string, policies: LoadedPolicies): NewPolicyVersion | null {
    if (policies.version === NO_POLICY_VERSION || this.known.has(`${workspaceId}:${policies.version}`)) return null;
    return { id: policies.version, rules: policies.snapshots };
  }

  recorded(workspaceId: string, policies: LoadedPolicies): void {
    if (policies.version === NO_POLICY_VERSION) return;
    if (this.known.size >= KNOWN_SIZE) this.known.delete(this.known.values().next().value as string);
    this.known.add(`${workspaceId}:${policies.version}`);
  }

  async insert(em: EntityManager, workspaceId: string, version: NewPolicyVersion | null): Promise<void> {
    if (version) await this.versions.insert(em, workspaceId, version);
  }

  /** `pv_none` has no row: it means no policy at all. */
  async get(workspaceId: string, id: string, em?: EntityManager): Promise<PolicyVersion> {
    const found = await this.versions.find(workspaceId, id, em);
    if (!found) throw notFound('policy version');
    return found;
  }
}

export function presentPolicyVersion(v: PolicyVersion) {
  return { object: 'policy_version' as const, id: v.id, rules: v.rules, created_at: v.created_at, first_used_at: v.first_used_at };
}
