import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { ValidationFailed } from '@bursar/errors';
import { dtoConventionBreaches, NestedDto } from './dto-conventions';
import { createValidationPipe } from './validation.pipe';

class ItemDto {
  @ApiProperty()
  @IsString()
  name: string;

  @ApiPropertyOptional({ enum: ['on', 'off'], default: 'on' })
  @IsOptional()
  @IsIn(['on', 'off'])
  state: 'on' | 'off' = 'on';

  @ApiPropertyOptional({ type: String, nullable: true, description: 'null clears it' })
  @IsOptional()
  @IsString()
  note?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}

class ListDto {
  @ApiProperty({ type: [ItemDto] })
  @IsArray()
  @NestedDto(() => ItemDto, { each: true })
  items: ItemDto[];

  @ApiPropertyOptional({ type: ItemDto })
  @IsOptional()
  @NestedDto(() => ItemDto)
  main?: ItemDto;
}

/** The shape the fuzz found: ValidateNested alone, as the ledger's bulk DTO had it. */
class BareListDto {
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ItemDto)
  items: ItemDto[];
}

describe('DTO conventions', () => {
  const pipe = createValidationPipe();
  const body = (metatype: new () => object, value: unknown) => pipe.transform(value, { type: 'body', metatype });

  it.each([
    ['an array as a list item', { items: [[]] }, 'items'],
    ['a null list item', { items: [null] }, 'items'],
    ['an array as a nested object', { items: [], main: [] }, 'main'],
    ['an array of arrays as a nested object', { items: [], main: [[{ name: 'x' }]] }, 'main'],
  ])('refuses %s (400 with the field path)', async (_name, value, path) => {
    const failure = await body(ListDto, value).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ValidationFailed);
    expect(Object.keys((failure as ValidationFailed).fields)).toContain(path);
  });

  it('lists a DTO that validates nested DTOs without requiring objects, and only it', async () => {
    // What the check is for: this shape lets an array through as an item.
    await expect(body(BareListDto, { items: [[]] })).resolves.toEqual({ items: [[]] });
    expect(dtoConventionBreaches()).toEqual(['BareListDto.items']);
  });

  it('reads an explicit null in a field not declared nullable as absent, in nested DTOs too', async () => {
    const result = (await body(ListDto, {
      items: [{ name: 'a', state: null, note: null, metadata: { kept: null } }],
      main: { name: 'b', metadata: null },
    })) as ListDto;
    expect(result.items[0]).toBeInstanceOf(ItemDto);
    expect(result.items[0]).toEqual({ name: 'a', state: 'on', note: null, metadata: { kept: null } });
    expect(result.main).toEqual({ name: 'b', state: 'on' });
    expect(result.main && 'metadata' in result.main).toBe(false);
  });

  it('still refuses a null where a value is required', async () => {
    await expect(body(ListDto, { items: [{ name: null }] })).rejects.toBeInstanceOf(ValidationFailed);
  });
});
