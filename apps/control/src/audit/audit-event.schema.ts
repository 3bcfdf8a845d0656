import { ApiProperty } from '@nestjs/swagger';
import { AUDIT_SUBJECT_TYPES } from './audit-subjects';

export class AuditActorSchema {
  @ApiProperty({ enum: ['person', 'agent', 'system'] })
  type: string;

  @ApiProperty({ type: String, nullable: true, description: "A person's identity sub or an agent id" })
  id: string | null;
}

export class AuditEventSchema {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: AUDIT_SUBJECT_TYPES }) subject_type: string;
  @ApiProperty({ format: 'uuid' }) subject_id: string;
  @ApiProperty({ example: 'spend_token.issued' }) action: string;
  @ApiProperty({ type: String, nullable: true }) trace_id: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'State of the subject at the event' }) snapshot: object;
  @ApiProperty({ type: AuditActorSchema, nullable: true }) actor: AuditActorSchema | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}
