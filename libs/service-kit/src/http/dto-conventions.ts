import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions, DECORATORS } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, getMetadataStorage, IS_OBJECT, IsArray, IsIn, IsInt, IsObject, IsOptional, IsString, IsUUID, Length, Max, Min, ValidateNested, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

/*
 * Two rules every request DTO follows, kept here so no route has to remember them:
 * - a nested DTO (or each item of a list of them) must be an object: class-validator's ValidateNested
 *   alone walks into an array found where an object belongs and validates its items instead, so `[]`
 *   or `[[]]` passed as a valid item and reached a service as an array;
 * - an explicit null in a field the API does not declare nullable means absent: IsOptional (and
 *   ValidateIf guards) let null through, and class-transformer then overwrote the DTO's default with
 *   it, so a null reached services and SQL columns that never expect one.
 */

/** A nested DTO, or with `each` a list of them: refused unless each one is a JSON object. */
export function NestedDto(type: () => new () => object, options: { each?: boolean } = {}): PropertyDecorator {
  const each = options.each ?? false;
  return applyDecorators(IsObject({ each }), ValidateNested({ each }), Type(type));
}

/** A required list of `min` to `max` nested DTOs, each refused unless a JSON object. */
export function NestedList(type: () => new () => object, min: number, max: number, doc: ApiPropertyOptions = {}): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ type: [type()], minItems: min, maxItems: max, ...doc } as ApiPropertyOptions),
    IsArray(),
    ArrayMinSize(min),
    ArrayMaxSize(max),
    NestedDto(type, { each: true }),
  );
}

/**
 * An optional field that also takes null (to clear it or turn it off): documented nullable, which
 * is what keeps an explicit null from being read as absent, and validated only when a value is sent.
 */
export function Nullable(doc: ApiPropertyOptions = {}): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ ...doc, nullable: true } as ApiPropertyOptions), IsOptional());
}

/** An optional field taking one of `values`, documented as that enum. */
export function OptionalIn(values: readonly string[], doc: ApiPropertyOptions = {}): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ enum: values, ...doc } as ApiPropertyOptions), IsOptional(), IsIn([...values]));
}

/** A required string of `min` to `max` characters. */
export function RequiredText(min: number, max: number, doc: ApiPropertyOptions = {}): PropertyDecorator {
  return applyDecorators(ApiProperty(doc), IsString(), Length(min, max));
}

/** An optional string of `min` to `max` characters. */
export function OptionalText(min: number, max: number, doc: ApiPropertyOptions = {}): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional(doc), IsOptional(), IsString(), Length(min, max));
}

/** An optional uuid, documented as one. */
export function OptionalUuid(doc: ApiPropertyOptions = {}): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ format: 'uuid', ...doc } as ApiPropertyOptions), IsOptional(), IsUUID());
}

/** An optional whole number from `min` to `max` (a query string's digits are converted), documented with its bounds. */
export function OptionalInt(min: number, max: number, doc: ApiPropertyOptions = {}): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ minimum: min, maximum: max, ...doc } as ApiPropertyOptions),
    IsOptional(),
    Type(() => Number),
    IsInt(),
    Min(min),
    Max(max),
  );
}

interface PropertyDoc {
  nullable?: boolean;
}

/** Whether the OpenAPI document declares `property` of this DTO nullable, so that null is a value. */
function declaredNullable(instance: object, property: string): boolean {
  const doc = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, Object.getPrototypeOf(instance), property) as PropertyDoc | undefined;
  return doc?.nullable === true;
}

function isDto(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as object | null;
  return prototype !== null && prototype !== Object.prototype;
}

/**
 * Turns each explicit null a validated DTO kept in a field not declared nullable into the field's
 * default (or absence), in nested DTOs too; free-form objects (metadata) are left as sent.
 */
export function nullsAsAbsent(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) nullsAsAbsent(item);
    return;
  }
  if (!isDto(value)) return;
  let defaults: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const field = value[key];
    if (field !== null) nullsAsAbsent(field);
    else if (!declaredNullable(value, key)) {
      defaults ??= new (value.constructor as new () => Record<string, unknown>)();
      if (defaults[key] === undefined) delete value[key];
      else value[key] = defaults[key];
    }
  }
}

/** class-validator keeps its metadata per DTO class in a private map; read it, or fail loudly if that changes. */
function registeredValidations(): Map<abstract new () => object, ValidationMetadata[]> {
  const map = (getMetadataStorage() as unknown as { validationMetadatas?: unknown }).validationMetadatas;
  if (!(map instanceof Map)) throw new Error('class-validator no longer keeps validationMetadatas as a Map; update dtoConventionBreaches');
  return map as Map<abstract new () => object, ValidationMetadata[]>;
}

/** `Dto.property` of every loaded DTO that validates nested DTOs without requiring objects (see NestedDto). */
export function dtoConventionBreaches(): string[] {
  const breaches: string[] = [];
  for (const [target, metadatas] of registeredValidations()) {
    for (const nested of metadatas.filter((m) => m.type === ValidationTypes.NESTED_VALIDATION)) {
      const objectChecked = metadatas.some(
        (m) => m.propertyName === nested.propertyName && m.name === IS_OBJECT && Boolean(m.each) === Boolean(nested.each),
      );
      if (!objectChecked) breaches.push(`${target.name}.${nested.propertyName}`);
    }
  }
  return breaches;
}

/** How many loaded DTO properties validate nested DTOs: a sweep that saw none checked nothing. */
export function nestedDtoCount(): number {
  let count = 0;
  for (const metadatas of registeredValidations().values()) count += metadatas.filter((m) => m.type === ValidationTypes.NESTED_VALIDATION).length;
  return count;
}
