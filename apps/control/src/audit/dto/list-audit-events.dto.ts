import { OptionalIn, OptionalText, OptionalUuid } from '@bursar/service-kit';
import { ListQueryDto } from '../../common/pagination';
import { AUDIT_SUBJECT_TYPES, AuditSubjectType } from '../audit-subjects';

export class ListAuditEventsDto extends ListQueryDto {
  @OptionalIn(AUDIT_SUBJECT_TYPES)
  subject_type?: AuditSubjectType;

  @OptionalUuid()
  subject_id?: string;

  @OptionalText(1, 100, { description: 'Dotted action name, e.g. spend_token.issued' })
  action?: string;

  @OptionalText(1, 200)
  trace_id?: string;
}
