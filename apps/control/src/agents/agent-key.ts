import { digestSecret, randomToken } from '@bursar/crypto';

export const AGENT_KEY_PREFIX = 'krt_';
export type AgentMode = 'test' | 'live';

const MODE_PREFIX = /^krt_(test|live)_/;
/** Random characters kept in the lookup column: enough to be unique, far too few to use the key. */
const LOOKUP_CHARS = 16;

export interface IssuedAgentKey {
  /** The plaintext, shown to the creator once and never stored. */
  key: string;
  lookup: string;
  digest: string;
  prefix: string;
}

export function issueAgentKey(mode: AgentMode): IssuedAgentKey {
  const key = `krt_${mode}_${randomToken(32)}`;
  return { key, lookup: agentKeyLookup(key) as string, digest: digestSecret(key), prefix: key.slice(0, 12) };
}

/** The column value to find a presented key's row by, or undefined when it cannot be an agent key. */
export function agentKeyLookup(presented: string): string | undefined {
  const mode = MODE_PREFIX.exec(presented);
  if (!mode) return undefined;
  const lookup = presented.slice(0, mode[0].length + LOOKUP_CHARS);
  return lookup.length === mode[0].length + LOOKUP_CHARS ? lookup : undefined;
}
