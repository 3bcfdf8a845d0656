import { applyDecorators, Body, Controller, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiData } from '../common/openapi-responses';
import type { Request, Response } from 'express';
import { bearerToken } from '@bursar/service-kit';
import { ControlSettings } from '../config/control.settings';
import { CosignErrors } from './cosign.errors';
import { CosignatureCheck, CosignService, INVALID_REASONS } from './cosign.service';
import { CosignKeysService } from './cosign-keys.service';
import { InvalidCosignatureSchema, ValidCosignatureSchema } from './cosignature.schema';
import { ConsumeCosignatureDto, VerifyCosignatureDto } from './dto/cosignature.dto';
import { FRAME_HASH_DOC } from '../decisions/decision';

const ApiCheckResponses = () =>
  applyDecorators(
    ApiData(ValidCosignatureSchema),
    ApiExtraModels(InvalidCosignatureSchema),
    ApiResponse({
      status: 422,
      description: `reason is one of ${INVALID_REASONS.join(', ')}. A spent cosignature also carries error {message, code: already_consumed}`,
      schema: {
        type: 'object',
        required: ['data'],
        properties: {
          data: { $ref: getSchemaPath(InvalidCosignatureSchema) },
          error: { type: 'object', properties: { message: { type: 'string' }, code: { type: 'string', enum: ['already_consumed'] } } },
        },
      },
    }),
    ApiResponse({ status: 400, description: 'authorization_required: no token in the body or the Authorization header' }),
  );

function presented(req: Request, body: VerifyCosignatureDto): string {
  const token = body.authorization || bearerToken(req);
  if (!token) throw CosignErrors.error('authorization_required');
  return token;
}

/** Executors check cosignatures here without any credential; the token is the authority. */
@ApiTags('cosignatures')
@Controller()
export class CosignController {
  constructor(
    private readonly cosign: CosignService,
    private readonly keys: CosignKeysService,
    @Inject(ControlSettings) private readonly settings: Pick<ControlSettings, 'COSIGN_JWKS_MAX_AGE_SECONDS'>,
  ) {}

  @Post('control/v1/cosign/verify')
  @ApiCheckResponses()
  @ApiOperation({ summary: 'Check a cosignature (stateful: valid only while its intent is spendable and unspent)', description: FRAME_HASH_DOC })
  async verify(@Req() req: Request, @Body() body: VerifyCosignatureDto, @Res({ passthrough: true }) res: Response) {
    return this.answer(res, await this.cosign.verify(presented(req, body)));
  }

  @Post('control/v1/cosign/consume')
  @ApiCheckResponses()
  @ApiOperation({ summary: 'Verify, then mark the authority spent; a second consume answers 422 already_settled with error code already_consumed', description: FRAME_HASH_DOC })
  async consume(@Req() req: Request, @Body() body: ConsumeCosignatureDto, @Res({ passthrough: true }) res: Response) {
    return this.answer(res, await this.cosign.consume(presented(req, body), body.consumed_by ?? null));
  }

  @Get('.well-known/jwks.json')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Public keys of every cosigning key that may still verify, or will sign; empty when cosigning is off',
    description: 'Cacheable for COSIGN_JWKS_MAX_AGE_SECONDS (Cache-Control max-age); a rotated key is listed here before it signs anything.',
  })
  @ApiResponse({
    status: 200,
    description: 'A JSON Web Key Set (RFC 7517), not enveloped',
    schema: {
      type: 'object',
      required: ['keys'],
      properties: {
        keys: {
          type: 'array',
          items: {
            type: 'object',
            required: ['kty', 'crv', 'x', 'y', 'kid'],
            properties: { kty: { type: 'string', enum: ['EC'] }, crv: { type: 'string', enum: ['P-256'] }, x: { type: 'string' }, y: { type: 'string' }, kid: { type: 'string' }, alg: { type: 'string', enum: ['ES256'] }, use: { type: 'string', enum: ['sig'] } },
          },
        },
      },
    },
  })
  jwks(@Res({ passthrough: true }) res: Response) {
    // A rotated key signs only after this lifetime has passed (COSIGN_KEY_ACTIVATION_DELAY_MS is validated against it).
    res.setHeader('Cache-Control', `public, max-age=${this.settings.COSIGN_JWKS_MAX_AGE_SECONDS}`);
    return this.keys.jwks();
  }

  /**
   * 200 or 422 with the result; a spent authority also names the contract's code `already_consumed`
   * beside the result, so clients reading either field understand it.
   */
  private answer(res: Response, check: CosignatureCheck) {
    res.status(check.valid ? 200 : 422);
    if (check.valid || !check.consumed) return { data: check };
    return { data: { valid: check.valid, reason: check.reason }, error: { message: 'This cosignature was already consumed', code: 'already_consumed' } };
  }
}
