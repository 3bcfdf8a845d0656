import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { STATEMENT_FORMATS, StatementFormat } from '../parsers/statement';

export class ImportStatementQuery {
  @ApiPropertyOptional({ enum: STATEMENT_FORMATS, description: 'Format of the file; detected from its content when absent' })
  @IsOptional()
  @IsIn(STATEMENT_FORMATS)
  format?: StatementFormat;
}

export class StatementSummaryResponse {
  @ApiProperty() account_reference: string;
  @ApiProperty() currency: string;
  @ApiProperty({ type: 'string', format: 'date', nullable: true }) from: string | null;
  @ApiProperty({ type: 'string', format: 'date', nullable: true }) to: string | null;
  @ApiProperty({ type: 'string', pattern: '^-?\\d+$', nullable: true, description: 'Signed minor units' }) opening_balance: string | null;
  @ApiProperty({ type: 'string', pattern: '^-?\\d+$', nullable: true, description: 'Signed minor units' }) closing_balance: string | null;
  @ApiProperty() entry_count: number;
}

export class StatementImportErrorResponse {
  @ApiProperty({ enum: ['invalid_request'] }) code: string;
  @ApiProperty() message: string;
  @ApiProperty({ example: 'entries[3].amount' }) param: string;
  @ApiProperty({ type: 'string', nullable: true }) external_id: string | null;
}

export class BalanceCheckResponse {
  @ApiProperty() account_reference: string;
  @ApiProperty() account_id: string;
  @ApiProperty({ pattern: '^-?\\d+$' }) statement_closing: string;
  @ApiProperty({ pattern: '^-?\\d+$' }) ledger_balance: string;
  @ApiProperty({ pattern: '^-?\\d+$' }) difference: string;
}

/** Wire shape of a statement import (documentation only; presentStatementImport builds it). */
export class StatementImportResponse {
  @ApiProperty({ enum: ['statement_import'] }) object: 'statement_import';
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) source_id: string;
  @ApiProperty({ enum: STATEMENT_FORMATS }) format: string;
  @ApiProperty({ type: [StatementSummaryResponse] }) statements: StatementSummaryResponse[];
  @ApiProperty() created_count: number;
  @ApiProperty() replayed_count: number;
  @ApiProperty() error_count: number;
  @ApiProperty({ type: [StatementImportErrorResponse], description: 'Entries ingest refused (the others landed)' }) errors: StatementImportErrorResponse[];
  @ApiProperty({ type: [BalanceCheckResponse] }) balance_checks: BalanceCheckResponse[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
}
