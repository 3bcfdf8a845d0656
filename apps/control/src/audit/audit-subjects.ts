/** The reference's `subject_type` values, which the list filter accepts and nothing else. */
export const AUDIT_SUBJECT_TYPES = [
  'Session',
  'SpendToken',
  'ActionIntent',
  'PaymentIntent',
  'Policy',
  'PolicyModule',
  'Agent',
  'Workspace',
  'WorkspaceMembership',
  'WorkspaceInvitation',
  'Subscription',
] as const;
export type AuditSubjectType = (typeof AUDIT_SUBJECT_TYPES)[number];

/** Who caused an event: a person by identity `sub`, an agent by id, or the service itself (sweeps). */
export interface AuditActor {
  type: 'person' | 'agent' | 'system';
  id: string | null;
}

export function personActor(sub: string): AuditActor {
  return { type: 'person', id: sub };
}
