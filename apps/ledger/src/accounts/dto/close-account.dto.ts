import { RequiredText } from '@bursar/service-kit';

export class CloseAccountDto {
  @RequiredText(1, 200, { description: 'Free label of who closed the account' })
  closed_by_label: string;
}
