import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, Matches, ValidateIf } from 'class-validator';
import { OptionalInt } from '@bursar/service-kit';
import { CsvMapping } from '../parsers/csv.parser';

const COLUMN = { type: 'string', minLength: 1, maxLength: 200 } as const;

/** A source's CSV mapping; columns are named by the file's header row. */
export class CsvMappingDto implements CsvMapping {
  @ApiPropertyOptional({ type: 'string', enum: [',', ';', '\t', '|'], default: ',' })
  @IsOptional()
  @IsIn([',', ';', '\t', '|'])
  delimiter?: string;

  @ApiProperty({ ...COLUMN, description: 'Column holding the booking date' })
  @IsString()
  @Length(1, 200)
  date_column: string;

  @ApiPropertyOptional({ type: 'string', default: 'yyyy-MM-dd', example: 'dd.MM.yyyy', description: 'Unicode date pattern of yyyy/yy, MM/M, dd/d and literal separators' })
  @IsOptional()
  @Matches(/^(yyyy|yy|MM|M|dd|d|[^A-Za-z])+$/, { message: 'date_format must be a pattern of yyyy, yy, MM, M, dd, d and separators' })
  date_format?: string;

  @ApiPropertyOptional({ ...COLUMN, description: 'Signed amount column; else debit_column and credit_column' })
  @ValidateIf((m: CsvMappingDto) => m.debit_column === undefined && m.credit_column === undefined)
  @IsString()
  @Length(1, 200)
  amount_column?: string;

  @ApiPropertyOptional({ ...COLUMN, description: 'Outflow column (with credit_column, instead of amount_column)' })
  @ValidateIf((m: CsvMappingDto) => m.amount_column === undefined)
  @IsString()
  @Length(1, 200)
  debit_column?: string;

  @ApiPropertyOptional({ ...COLUMN, description: 'Inflow column (with debit_column, instead of amount_column)' })
  @ValidateIf((m: CsvMappingDto) => m.amount_column === undefined)
  @IsString()
  @Length(1, 200)
  credit_column?: string;

  @ApiPropertyOptional({ ...COLUMN, description: 'Currency column; else currency' })
  @ValidateIf((m: CsvMappingDto) => m.currency === undefined)
  @IsString()
  @Length(1, 200)
  currency_column?: string;

  @ApiPropertyOptional({ type: 'string', example: 'EUR', description: 'Currency of every row when the file has no currency column' })
  @ValidateIf((m: CsvMappingDto) => m.currency_column === undefined)
  @Matches(/^[A-Za-z]{3}$/, { message: 'currency must be a three-letter currency code' })
  currency?: string;

  @ApiProperty({ ...COLUMN, description: "Column holding the bank's reference (becomes external_id)" })
  @IsString()
  @Length(1, 200)
  reference_column: string;

  @ApiPropertyOptional(COLUMN)
  @IsOptional()
  @IsString()
  @Length(1, 200)
  description_column?: string;

  @ApiPropertyOptional(COLUMN)
  @IsOptional()
  @IsString()
  @Length(1, 200)
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
