import { Body, Controller, Get, Header, Headers, HttpCode, Post, UseFilters } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AuthorizationServerMetadataResponse, OauthErrorResponse, TokenRequestForm, TokenResponse } from './dto/oauth.responses';
import { OauthExceptionFilter } from './oauth-exception.filter';
import { OauthService } from './oauth.service';
import { readTokenRequest } from './token-request';

@ApiTags('OAuth')
@Controller()
@UseFilters(OauthExceptionFilter)
export class OauthController {
  constructor(private readonly oauth: OauthService) {}

  @Post('oauth/token')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  @ApiOperation({
    summary: 'Client credentials grant',
    description:
      'Form body grant_type=client_credentials and optional scope (space-separated subset of the client\'s scopes); ' +
      'credentials as HTTP Basic (form-urlencoded parts) or client_id/client_secret fields. Errors are RFC 6749 ' +
      'bodies {error, error_description}: invalid_client 401; invalid_request, invalid_grant, invalid_scope, ' +
      'unsupported_grant_type 422. Access tokens are HS256 JWTs keyed from LEDGER_SECRET_KEY.',
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({ type: TokenRequestForm })
  @ApiOkResponse({ type: TokenResponse })
  @ApiResponse({ status: 401, type: OauthErrorResponse, description: 'invalid_client' })
  @ApiResponse({ status: 422, type: OauthErrorResponse, description: 'invalid_request, invalid_grant, invalid_scope, unsupported_grant_type' })
  token(@Body() body: Record<string, unknown> | undefined, @Headers('authorization') authorization?: string) {
    return this.oauth.grant(readTokenRequest(body, authorization), new Date());
  }

  @Get('.well-known/oauth-authorization-server')
  @ApiOperation({ summary: 'RFC 8414 authorization server metadata' })
  @ApiOkResponse({ type: AuthorizationServerMetadataResponse })
  metadata() {
    return this.oauth.metadata();
  }
}
