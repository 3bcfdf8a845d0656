import { FUND_CLASSIFICATIONS, FundClassification } from '../account-kinds';
import { OptionalMetadata } from '../../common/optional-metadata.decorator';
import { OptionalIn, OptionalText } from '@bursar/service-kit';

/** Fields an account template and an account share: fund classification, custody pair, metadata. */
export class ClassificationFieldsDto {
  @OptionalIn(FUND_CLASSIFICATIONS, { description: "Accounts default to neutral, or to their template's" })
  fund_classification?: FundClassification;

  @OptionalText(1, 200, { description: 'Custodian of the funds; custody_provider and custody_external_id go together' })
  custody_provider?: string;

  @OptionalText(1, 200, { description: "The custodian's identifier of the holding" })
  custody_external_id?: string;

  @OptionalMetadata()
  metadata?: Record<string, unknown>;
}
