import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { CompiledPolicies, compilePolicies, PolicySnapshot } from './policy-compiler';
import { parseActivePolicies, PoliciesRepository } from './policies.repository';
import { policyVersion, snapshotPolicy } from './policy-snapshot';

/** What a decision evaluates: the snapshots, their content version, and their compiled closures. */
export interface LoadedPolicies {
  snapshots: PolicySnapshot[];
  version: string;
  compiled: CompiledPolicies;
}

/** Snapshots ready to evaluate, with no cache: what a replay or a backtest outside Nest uses. */
export function loadedPolicies(snapshots: PolicySnapshot[]): LoadedPolicies {
  return { snapshots, version: policyVersion(snapshots), compiled: compilePolicies(snapshots) };
}

/** Entries kept per cache; the oldest goes first once one is full. */
const CACHE_SIZE = 2000;

function remember<T>(cache: Map<string, T>, key: string, value: T): T {
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
  return value;
}

/**
 * Loads an agent's policies for a decision and compiles them once per `policy_version`. The active
 * policies arrive as JSON text, and identical text means identical snapshots, so a request whose
 * policies did not change reuses the parsed snapshots, their digest and their closures as they are.
 */
@Injectable()
export class PolicyEngine {
  private readonly compiled = new Map<string, CompiledPolicies>();
  private readonly loaded = new Map<string, LoadedPolicies>();

  constructor(private readonly policies: PoliciesRepository) {}

  async loadForAgent(em: EntityManager, workspaceId: string, agentId: string): Promise<LoadedPolicies> {
    return this.fromJson(await this.policies.activeJson(em, workspaceId, agentId));
  }

  /** `json` as `activePoliciesJson` reads it. */
  fromJson(json: string): LoadedPolicies {
    const hit = this.loaded.get(json);
    if (hit) return hit;
    const snapshots = parseActivePolicies(json).map((row) => snapshotPolicy(row, new Map(row.modules.map((m) => [m.name, m.rules]))));
    return remember(this.loaded, json, this.prepare(snapshots));
  }

  prepare(snapshots: PolicySnapshot[]): LoadedPolicies {
    const version = policyVersion(snapshots);
    const compiled = this.compiled.get(version) ?? remember(this.compiled, version, compilePolicies(snapshots));
    return { snapshots, version, compiled };
  }
}
