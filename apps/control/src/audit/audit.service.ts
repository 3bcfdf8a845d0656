import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { notFound } from '../common/control-errors';
import { ListQueryDto, mapPage, Page } from '../common/pagination';
import { AuditEvent } from './audit-event.entity';
import { AuditEntry, AuditFilter, AuditRepository } from './audit.repository';
import { AuditSubjectType, personActor } from './audit-subjects';

export function presentAuditEvent(event: AuditEvent) {
  return {
    id: event.id,
    subject_type: event.subject_type,
    subject_id: event.subject_id,
    action: event.action,
    trace_id: event.trace_id,
    snapshot: event.snapshot,
    actor: event.actor_type ? { type: event.actor_type, id: event.actor_id } : null,
    created_at: event.created_at,
  };
}
export type PresentedAuditEvent = ReturnType<typeof presentAuditEvent>;

/** The append-only audit log: every module writes through `append`, inside its own transaction. */
@Injectable()
export class AuditService {
  constructor(private readonly events: AuditRepository) {}

  append(em: EntityManager, workspaceId: string, entry: AuditEntry): Promise<void> {
    return this.events.append(em, workspaceId, entry);
  }

  /** Appends `action` on one of a workspace's subjects with its snapshot, by the person `actorSub` when a person acted. */
  record(em: EntityManager, subjectType: AuditSubjectType, subject: { id: string; workspace_id: string }, snapshot: object, action: string, traceId: string, actorSub?: string): Promise<void> {
    return this.events.append(em, subject.workspace_id, {
      subject_type: subjectType,
      subject_id: subject.id,
      action,
      trace_id: traceId,
      snapshot,
      ...(actorSub === undefined ? {} : { actor: personActor(actorSub) }),
    });
  }

  async list(workspaceId: string, filter: AuditFilter, page: ListQueryDto): Promise<Page<PresentedAuditEvent>> {
    return mapPage(await this.events.list(workspaceId, filter, page), presentAuditEvent);
  }

  async get(workspaceId: string, id: string): Promise<PresentedAuditEvent> {
    const event = await this.events.find(workspaceId, id);
    if (!event) throw notFound('audit event');
    return presentAuditEvent(event);
  }
}
