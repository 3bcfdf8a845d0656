import type { Adapter, AdapterPayload } from 'oidc-provider';

/**
 * In-memory storage for oidc-provider's short-lived artifacts, one store per provider. Development
 * tokens need not survive a restart. `clients`, when given, answers lookups of the Client model for
 * ids it recognises (so any name can be a person without registering it first).
 */
export function memoryAdapter(clients?: (id: string) => AdapterPayload | undefined) {
  const rows = new Map<string, AdapterPayload>();
  return class MemoryAdapter implements Adapter {
    constructor(private readonly model: string) {}
    private key(id: string) {
      return `${this.model}:${id}`;
    }
    async upsert(id: string, payload: AdapterPayload) {
      rows.set(this.key(id), payload);
    }
    async find(id: string) {
      return rows.get(this.key(id)) ?? (this.model === 'Client' ? clients?.(id) : undefined);
    }
    /** Rows of this adapter's model only: an Interaction and a Session can carry the same field names. */
    private own(): AdapterPayload[] {
      return [...rows].filter(([key]) => key.startsWith(`${this.model}:`)).map(([, row]) => row);
    }
    async findByUid(uid: string) {
      return this.own().find((row) => row.uid === uid);
    }
    async findByUserCode(userCode: string) {
      return this.own().find((row) => row.userCode === userCode);
    }
    async consume(id: string) {
      const row = rows.get(this.key(id));
      if (row) row.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string) {
      rows.delete(this.key(id));
    }
    /** Called per token model; an Interaction that merely mentions the grant must survive it. */
    async revokeByGrantId(grantId: string) {
      for (const [key, row] of rows) if (key.startsWith(`${this.model}:`) && row.grantId === grantId) rows.delete(key);
    }
  };
}
