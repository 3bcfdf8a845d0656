import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Form body of POST /oauth/token (documentation only; readTokenRequest parses it). */
export class TokenRequestForm {
  @ApiProperty({ enum: ['client_credentials'] }) grant_type: string;
  @ApiPropertyOptional({ description: "Space-separated subset of the client's scopes (default all); `read` is short for `ledger:read`" })
  scope?: string;
  @ApiPropertyOptional({ description: 'With client_secret, instead of HTTP Basic' }) client_id?: string;
  @ApiPropertyOptional() client_secret?: string;
}

export class TokenResponse {
  @ApiProperty({ description: 'HS256 JWT' }) access_token: string;
  @ApiProperty({ enum: ['Bearer'] }) token_type: 'Bearer';
  @ApiProperty({ example: 3600 }) expires_in: number;
  @ApiProperty({ example: 'ledger:read ledger:write' }) scope: string;
}

/** RFC 6749 error body of the token endpoint (not the ledger error envelope). */
export class OauthErrorResponse {
  @ApiProperty({ enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope'] })
  error: string;
  @ApiPropertyOptional() error_description?: string;
  @ApiPropertyOptional() hint?: string;
}

export class AuthorizationServerMetadataResponse {
  @ApiProperty() issuer: string;
  @ApiProperty() token_endpoint: string;
  @ApiProperty({ type: [String] }) grant_types_supported: string[];
  @ApiProperty({
    type: [String],
    maxItems: 0,
    description:
      'Always empty: only the client_credentials grant is served, which uses no authorization endpoint and no ' +
      'response_type. RFC 8414 s.2 requires the member, so it is present and empty rather than listing a flow that is not served.',
  })
  response_types_supported: string[];
  @ApiProperty({ type: [String] }) scopes_supported: string[];
  @ApiProperty({
    type: [String],
    description:
      'client_secret_basic and client_secret_post. No JWT client authentication is offered, so the metadata carries no ' +
      'token_endpoint_auth_signing_alg_values_supported (RFC 8414 s.2 defines it for private_key_jwt and client_secret_jwt only); ' +
      'access tokens are HS256 JWTs that only the ledger verifies.',
  })
  token_endpoint_auth_methods_supported: string[];
  @ApiProperty({
    type: [String],
    description:
      'Extension member (RFC 8414 s.2 allows additional members): the JWS algorithms access tokens are signed with. ' +
      'Only the ledger verifies them; it is published so the metadata names its signing algorithm honestly.',
  })
  access_token_signing_alg_values_supported: string[];
  @ApiProperty() service_documentation: string;
}
