import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUUID, Length } from 'class-validator';
import { ListQueryDto } from '../../common/pagination';
import { AUDIT_SUBJECT_TYPES, AuditSubjectType } from '../audit-subjects';

export class ListAuditEventsDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: AUDIT_SUBJECT_TYPES })
  @IsOptional()
  @IsIn(AUDIT_SUBJECT_TYPES)
  subject_type?: AuditSubjectType;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  subject_id?: string;

  @ApiPropertyOptional({ description: 'Dotted action name, e.g. spend_token.issued' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  action?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 200)
  trace_id?: string;
}
