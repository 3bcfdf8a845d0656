import { ErrorCatalog } from '@bursar/errors';

export const AgentKeyErrors = new ErrorCatalog({
  runtime_key_required: { status: 401, message: 'An agent key is required: Authorization: Bearer krt_...', hint: "Send the agent's key as Authorization: Bearer krt_test_... (or krt_live_...)" },
  invalid_runtime_key: { status: 401, message: 'The agent key is unknown, or its agent is suspended or revoked', hint: "Check the key (it is shown once, at creation or rotation) and that its agent is active" },
});
