import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, Matches, ValidateIf } from 'class-validator';
import { OptionalInt } from '@bursar/service-kit';
import { CsvMapping } from '../parsers/csv.parser';

/**
 * A column named by the file's header row (1-200 characters): required, optional, or validated when
 * the test says the mapping gives no alternative to it.
 */
function Column(presence: 'required' | 'optional' | ((mapping: CsvMappingDto) => boolean), description?: string): PropertyDecorator {
  const doc = { type: 'string', minLength: 1, maxLength: 200, ...(description !== undefined && { description }) } as const;
  if (presence === 'required') return applyDecorators(ApiProperty(doc), IsString(), Length(1, 200));
  return applyDecorators(ApiPropertyOptional(doc), presence === 'optional' ? IsOptional() : ValidateIf(presence), IsString(), Length(1, 200));
}

/** A source's CSV mapping; columns are named by the file's header row. */
export class CsvMappingDto implements CsvMapping {
  @ApiPropertyOptional({ type: 'string', enum: [',', ';', '\t', '|'], default: ',' })
  @IsOptional()
  @IsIn([',', ';', '\t', '|'])
  delimiter?: string;

  @Column('required', 'Column holding the booking date')
  date_column: string;

  @ApiPropertyOptional({ type: 'string', default: 'yyyy-MM-dd', example: 'dd.MM.yyyy', description: 'Unicode date pattern of yyyy/yy, MM/M, dd/d and literal separators' })
  @IsOptional()
  @Matches(/^(yyyy|yy|MM|M|dd|d|[^A-Za-z])+$/, { message: 'date_format must be a pattern of yyyy, yy, MM, M, dd, d and separators' })
  date_format?: string;

  @Column((m) => m.debit_column === undefined && m.credit_column === undefined, 'Signed amount column; else debit_column and credit_column')
  amount_column?: string;

  @Column((m) => m.amount_column === undefined, 'Outflow column (with credit_column, instead of amount_column)')
  debit_column?: string;

  @Column((m) => m.amount_column === undefined, 'Inflow column (with debit_column, instead of amount_column)')
  credit_column?: string;

  @Column((m) => m.currency === undefined, 'Currency column; else currency')
  currency_column?: string;

  @ApiPropertyOptional({ type: 'string', example: 'EUR', description: 'Currency of every row when the file has no currency column' })
  @ValidateIf((m: CsvMappingDto) => m.currency_column === undefined)
  @Matches(/^[A-Za-z]{3}$/, { message: 'currency must be a three-letter currency code' })
  currency?: string;

  @Column('required', "Column holding the bank's reference (becomes external_id)")
  reference_column: string;

  @Column('optional')
  description_column?: string;

  @Column('optional')
  counterparty_column?: string;

  @ApiPropertyOptional({ type: 'string', enum: ['.', ','], default: '.' })
  @IsOptional()
  @IsIn(['.', ','])
  decimal_separator?: string;

  @ApiPropertyOptional({ type: 'string', enum: [',', '.', ' ', "'"] })
  @IsOptional()
  @IsIn([',', '.', ' ', "'"])
  thousands_separator?: string;

  @OptionalInt(0, 100, { type: 'integer', default: 0, description: 'Lines before the header row' })
  skip_rows?: number;

  @ApiPropertyOptional({ type: 'string', maxLength: 255, description: 'Account reference the statements carry (the file has none)' })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  account_reference?: string;
}
