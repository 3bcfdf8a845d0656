import { DocumentBuilder } from '@nestjs/swagger';

export const LEDGER_OPENAPI_PATH = '/ledger/v1/openapi.json';

export function describeLedgerApi(builder: DocumentBuilder): DocumentBuilder {
  return builder
    .setTitle('Bursar Ledger API')
    .setDescription(
      'Double-entry ledger for accounting systems. Authenticate with an OAuth 2.0 client_credentials ' +
        'access token from POST /oauth/token. Every response carries X-Request-Id; failures use the ' +
        'error envelope {error: {code, message, hint, param, details, docs_url, request_id}, livemode, request_id}.',
    )
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'oauth2');
}
