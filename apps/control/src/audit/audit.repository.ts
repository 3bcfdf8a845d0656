import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuditEvent } from './audit-event.entity';

export interface AuditEntry {
  subject_type: string;
  subject_id: string;
  action: string;
  trace_id: string | null;
  snapshot: object;
}

@Injectable()
export class AuditRepository {
  /** Appends inside the caller's transaction, so the event exists exactly when the change does. */
  async append(em: EntityManager, workspaceId: string, entry: AuditEntry): Promise<void> {
    await em.insert(AuditEvent, { workspace_id: workspaceId, ...entry });
  }
}
