import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ListQueryDto, Page, paginate } from '../common/pagination';
import { AuditEvent } from './audit-event.entity';
import type { AuditActor, AuditSubjectType } from './audit-subjects';

export interface AuditEntry {
  subject_type: AuditSubjectType;
  subject_id: string;
  action: string;
  trace_id: string | null;
  snapshot: object;
  actor?: AuditActor;
}

export interface AuditFilter {
  subject_type?: string;
  subject_id?: string;
  action?: string;
  trace_id?: string;
}

@Injectable()
export class AuditRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Appends inside the caller's transaction, so the event exists exactly when the change does. */
  async append(em: EntityManager, workspaceId: string, { actor, ...entry }: AuditEntry): Promise<void> {
    await em.insert(AuditEvent, {
      workspace_id: workspaceId,
      ...entry,
      actor_type: actor?.type ?? null,
      actor_id: actor?.id ?? null,
    });
  }

  list(workspaceId: string, filter: AuditFilter, page: ListQueryDto): Promise<Page<AuditEvent>> {
    const qb = this.dataSource.getRepository(AuditEvent).createQueryBuilder('e').where('e.workspace_id = :workspaceId', { workspaceId });
    for (const field of ['subject_type', 'subject_id', 'action', 'trace_id'] as const) {
      if (filter[field] !== undefined) qb.andWhere(`e.${field} = :${field}`, { [field]: filter[field] });
    }
    return paginate(qb, 'audit_events', workspaceId, page);
  }

  find(workspaceId: string, id: string): Promise<AuditEvent | null> {
    return this.dataSource.getRepository(AuditEvent).findOneBy({ workspace_id: workspaceId, id });
  }
}
