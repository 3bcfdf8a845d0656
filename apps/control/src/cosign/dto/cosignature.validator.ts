import { fastValidator, field } from '@bursar/service-kit';
import { ConsumeCosignatureDto, VerifyCosignatureDto } from './cosignature.dto';

/** Rules as VerifyCosignatureDto's decorators (an empty string passes: the route treats it as missing). */
const authorization = field.optional(field.string);

/** The fast path of POST /cosign/verify. */
export const acceptVerifyCosignature = fastValidator(VerifyCosignatureDto, { authorization });

/** The fast path of POST /cosign/consume. */
export const acceptConsumeCosignature = fastValidator(ConsumeCosignatureDto, { authorization, consumed_by: field.optional(field.text(1, 200)) });
