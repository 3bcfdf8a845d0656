import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { CompiledPolicies, compilePolicies, PolicySnapshot } from './policy-compiler';
import { PoliciesRepository } from './policies.repository';
import { policyVersion, snapshotPolicy } from './policy-snapshot';

/** What a decision evaluates: the snapshots, their content version, and their compiled closures. */
export interface LoadedPolicies {
  snapshots: PolicySnapshot[];
  version: string;
  compiled: CompiledPolicies;
}

/** Compiled closure sets kept per version; the oldest entry goes first once the cache is full. */
const CACHE_SIZE = 2000;

/**
 * Loads an agent's policies for a decision and compiles them once per `policy_version`: a request
 * reads and digests the rules (cheap), and reuses the closures when nothing changed.
 */
@Injectable()
export class PolicyEngine {
  private readonly cache = new Map<string, CompiledPolicies>();

  constructor(private readonly policies: PoliciesRepository) {}

  async loadForAgent(em: EntityManager, workspaceId: string, agentId: string): Promise<LoadedPolicies> {
    const rows = await this.policies.active(em, workspaceId, agentId);
    const snapshots = rows.map((row) => snapshotPolicy(row, new Map(row.modules.map((m) => [m.name, m.rules]))));
    return this.prepare(snapshots);
  }

  prepare(snapshots: PolicySnapshot[]): LoadedPolicies {
    const version = policyVersion(snapshots);
    let compiled = this.cache.get(version);
    if (!compiled) {
      compiled = compilePolicies(snapshots);
      if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(version, compiled);
    }
    return { snapshots, version, compiled };
  }
}
