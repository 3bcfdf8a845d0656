import { DocumentBuilder } from '@nestjs/swagger';

export const CONTROL_OPENAPI_PATH = '/control/v1/openapi.json';

export function describeControlApi(builder: DocumentBuilder): DocumentBuilder {
  return builder
    .setTitle('Bursar Control API')
    .setDescription(
      'Spend control for AI agents. Agents call /control/v1/agent/* with their agent key; people call ' +
        '/control/v1/workspaces/{workspace_slug}/* with an identity token. Failures use the envelope ' +
        '{error: {message, code}}; code is null for plain validation failures. Every response carries X-Request-Id.',
    )
    .setVersion('1.0.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Agent key (krt_test_... / krt_live_...)' }, 'agent_key')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'OIDC identity token' }, 'identity_token');
}
