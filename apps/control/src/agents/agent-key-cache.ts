import { Injectable } from '@nestjs/common';
import type { Agent } from './agent.entity';

/**
 * How long a replica reuses the agent row a presented key found: the bound on how long a suspension
 * or revocation takes to reach the other agent routes (changes made on this replica drop the entry
 * at once). Decisions re-read the agent in their own statement whatever this holds.
 */
const TTL_MS = 2_000;
const MAX_ENTRIES = 10_000;

export type KeyedAgent = Agent & { key_digest: string };

/**
 * Agent rows by key lookup, so a busy agent does not cost a database read per request, nor a digest
 * per request: each entry remembers the exact key texts that matched its row's digest (a set, so a
 * presented key is never compared character by character with one that matched).
 */
@Injectable()
export class AgentKeyCache {
  private readonly entries = new Map<string, { agent: KeyedAgent; until: number; verified: Set<string> }>();

  get(keyLookup: string): KeyedAgent | undefined {
    return this.entry(keyLookup)?.agent;
  }

  set(keyLookup: string, agent: KeyedAgent): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(keyLookup, { agent, until: Date.now() + TTL_MS, verified: new Set() });
  }

  /** True when `key` already matched the digest of `agent`, the row cached for `keyLookup`. */
  verified(keyLookup: string, agent: KeyedAgent, key: string): boolean {
    const hit = this.entry(keyLookup);
    return hit?.agent === agent && hit.verified.has(key);
  }

  /** After `key` matched the digest of `agent`; remembered while `agent` is the row cached for `keyLookup`. */
  markVerified(keyLookup: string, agent: KeyedAgent, key: string): void {
    const hit = this.entry(keyLookup);
    if (hit?.agent === agent) hit.verified.add(key);
  }

  private entry(keyLookup: string) {
    const hit = this.entries.get(keyLookup);
    if (hit && hit.until > Date.now()) return hit;
    this.entries.delete(keyLookup);
    return undefined;
  }

  /** After a change of the agent (status, scopes): the next request reads it again. */
  forgetAgent(agentId: string): void {
    this.forget((agent) => agent.id === agentId);
  }

  forgetWorkspace(workspaceId: string): void {
    this.forget((agent) => agent.workspace_id === workspaceId);
  }

  private forget(matches: (agent: KeyedAgent) => boolean): void {
    for (const [lookup, entry] of this.entries) if (matches(entry.agent)) this.entries.delete(lookup);
  }
}
