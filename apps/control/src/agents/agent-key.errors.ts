import { ErrorCatalog } from '@bursar/errors';

export const AgentKeyErrors = new ErrorCatalog({
  runtime_key_required: { status: 401, message: 'An agent key is required: Authorization: Bearer krt_...' },
  invalid_runtime_key: { status: 401, message: 'The agent key is unknown, or its agent is suspended or revoked' },
});
