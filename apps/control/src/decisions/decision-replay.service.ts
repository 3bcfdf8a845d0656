import { canonicalJson } from '@bursar/crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { notFound, unprocessable } from '../common/control-errors';
import { PolicyEngine } from '../policies/policy-engine.service';
import { NO_POLICY_VERSION } from '../policies/policy-snapshot';
import { PolicyVersionsService } from '../policy-versions/policy-versions.service';
import { Decision, frameHash } from './decision';
import { replayDecision } from './decision-engine';
import { frameOf } from './decision-inputs';
import { IntentKind } from './intent.entity';
import { auditNames, decisionOf } from './intent.presenter';
import { IntentsRepository } from './intents.repository';

/** The fields of a decision a replay compares; `policy_snapshot` only matters when it differs. */
const COMPARED = ['outcome', 'rule', 'detail', 'remedy', 'headroom', 'policy_version', 'frame_hash', 'policy_snapshot'] as const;

export interface DecisionReplay {
  object: 'decision_replay';
  intent_id: string;
  policy_version: string;
  frame_hash: string;
  recomputed_frame_hash: string;
  original: Decision;
  replayed: Decision;
  matches: boolean;
  differences: { field: string; original: unknown; replayed: unknown }[];
}

/**
 * Recomputes a recorded decision from its receipt: the stored request frame, under the policy
 * version it pinned (whatever the agent's policy is now) and the counters it read. Writes nothing
 * but one audit event.
 */
@Injectable()
export class DecisionReplayService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly intents: IntentsRepository,
    private readonly versions: PolicyVersionsService,
    private readonly engine: PolicyEngine,
    private readonly audit: AuditService,
  ) {}

  async replay(workspaceId: string, kind: IntentKind, id: string, sub: string, traceId: string): Promise<DecisionReplay> {
    const em = this.dataSource.manager;
    const intent = await this.intents.find({ workspaceId, kind }, id, em);
    if (!intent) throw notFound(kind === 'payment' ? 'payment intent' : 'action intent');
    const original = decisionOf(intent);
    if (!intent.decision_inputs) throw unprocessable('This decision was recorded before decisions kept the counters they read, so it cannot be replayed');
    const pinned = original.policy_version;
    const rules = pinned === NO_POLICY_VERSION ? [] : (await this.versions.get(workspaceId, pinned, em)).rules;
    const frame = frameOf(intent);
    const replayed: Decision = { id: original.id, ...replayDecision(this.engine.prepare(rules), frame, intent.decision_inputs) };
    const differences = COMPARED.flatMap((field) =>
      canonicalJson(original[field] ?? null) === canonicalJson(replayed[field] ?? null) ? [] : [{ field, original: original[field] ?? null, replayed: replayed[field] ?? null }],
    );
    const result: DecisionReplay = {
      object: 'decision_replay',
      intent_id: intent.id,
      policy_version: pinned,
      frame_hash: original.frame_hash,
      recomputed_frame_hash: frameHash(frame),
      original,
      replayed,
      matches: differences.length === 0,
      differences,
    };
    const names = auditNames(intent);
    await this.audit.append(em, workspaceId, {
      subject_type: names.subject_type,
      subject_id: intent.id,
      action: `${names.prefix}.replayed`,
      trace_id: traceId,
      snapshot: { policy_version: pinned, frame_hash: original.frame_hash, matches: result.matches, differences: differences.map((d) => d.field) },
      actor: { type: 'person', id: sub },
    });
    return result;
  }
}
