import { ApiProperty } from '@nestjs/swagger';

const MINOR = { type: 'string', pattern: '^-?\\d+$' } as const;

/** Wire shape of a reserve operation's answer (documentation only; presentReserveOp builds it). */
export class ReserveOpResultResponse {
  @ApiProperty({ enum: ['reserve_op_result'] }) object: 'reserve_op_result';
  @ApiProperty({ description: 'The restricted account holding the reserve' }) reserve_account_id: string;
  @ApiProperty({ format: 'uuid', description: 'The balanced transaction that moved the funds' }) transaction_id: string;
  @ApiProperty({ ...MINOR, description: "The reserve account's posted balance after the operation" }) balance: string;
  @ApiProperty({
    ...MINOR,
    description: "Posted balance, after the operation, of the account the funds left: the source on create, the reserve itself on release and claw",
  })
  remaining_balance: string;
}
