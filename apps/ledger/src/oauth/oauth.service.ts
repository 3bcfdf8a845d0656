import { Injectable } from '@nestjs/common';
import { LedgerSettings } from '../config/ledger.settings';
import { OauthClientsService } from '../oauth-clients/oauth-clients.service';
import { CLIENT_SCOPES, ClientScope, fullScopeName } from '../oauth-clients/oauth-scopes';
import { AccessTokenService } from '../auth/access-token.service';
import { TokenResponse } from './dto/oauth.responses';
import { OauthErrors } from './oauth-errors';
import { invalidClient, TokenRequest } from './token-request';

@Injectable()
export class OauthService {
  constructor(
    private readonly clients: OauthClientsService,
    private readonly tokens: AccessTokenService,
    private readonly settings: LedgerSettings,
  ) {}

  async grant(request: TokenRequest, now: Date): Promise<TokenResponse> {
    const client = await this.clients.authenticate(request.clientId, request.clientSecret, now);
    if (!client) throw invalidClient('Unknown client, wrong secret, or disabled client');
    if (!request.grantType) {
      throw OauthErrors.error('invalid_request', { message: 'grant_type is required', hint: 'Send grant_type=client_credentials' });
    }
    if (request.grantType !== 'client_credentials') {
      throw OauthErrors.error('unsupported_grant_type', { hint: 'Send grant_type=client_credentials' });
    }
    if (request.foreignParameters.length) {
      throw OauthErrors.error('invalid_grant', {
        message: `The client_credentials grant takes no ${request.foreignParameters.join(', ')}`,
      });
    }
    const scopes = this.grantedScopes(client.scopes, request.scope);
    const { token, expiresIn } = await this.tokens.issue(client, scopes, now);
    return { access_token: token, token_type: 'Bearer', expires_in: expiresIn, scope: scopes.join(' ') };
  }

  /**
   * RFC 8414 authorization-server metadata, naming only what is served: a token endpoint for the
   * client_credentials grant with client_secret_basic or client_secret_post. There is no
   * authorization endpoint, so `response_types_supported` (required by s.2) is honestly empty, and no
   * JWT client authentication, so no `token_endpoint_auth_signing_alg_values_supported` (s.2 ties it
   * to private_key_jwt and client_secret_jwt). The contract still names signing algorithms, so the
   * algorithm the access tokens are signed with is published in an extension member (s.2 allows them).
   * No revocation or introspection endpoint is served.
   */
  metadata() {
    const base = this.settings.publicUrl;
    return {
      issuer: base,
      token_endpoint: `${base}/oauth/token`,
      grant_types_supported: ['client_credentials'],
      response_types_supported: [],
      // `ledger:admin` is advertised as the reference does; no route requires it and none grants it.
      scopes_supported: [...CLIENT_SCOPES, 'ledger:admin'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      access_token_signing_alg_values_supported: ['HS256'],
      service_documentation: `${base}/ledger/v1/openapi.json`,
    };
  }

  /** No `scope` means every scope the client holds; otherwise a subset of them (short names accepted). */
  private grantedScopes(held: ClientScope[], requested: string | undefined): ClientScope[] {
    const asked = (requested ?? '').split(' ').filter(Boolean).map((s) => String(fullScopeName(s)));
    if (!asked.length) return held;
    const refused = asked.filter((s) => !(held as string[]).includes(s));
    if (refused.length) {
      throw OauthErrors.error('invalid_scope', {
        message: `Not granted to this client: ${refused.join(' ')}`,
        hint: `This client holds: ${held.join(' ')}`,
      });
    }
    return [...new Set(asked)] as ClientScope[];
  }
}
