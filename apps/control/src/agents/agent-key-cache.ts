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

/** Agent rows by key lookup, so a busy agent does not cost a database read per request. */
@Injectable()
export class AgentKeyCache {
  private readonly entries = new Map<string, { agent: KeyedAgent; until: number }>();

  get(keyLookup: string): KeyedAgent | undefined {
    const hit = this.entries.get(keyLookup);
    if (hit && hit.until > Date.now()) return hit.agent;
    this.entries.delete(keyLookup);
    return undefined;
  }

  set(keyLookup: string, agent: KeyedAgent): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(keyLookup, { agent, until: Date.now() + TTL_MS });
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
