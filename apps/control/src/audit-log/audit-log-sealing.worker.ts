import { roundWorker } from '../common/round-worker';
import { AuditLogService } from './audit-log.service';

/** Seals committed audit events into their workspace's log and signs the logs that are due. */
export const AUDIT_LOG_SEALING = roundWorker('control-audit-log', (s) => s.AUDIT_LOG_SEAL_INTERVAL_MS, AuditLogService, (log) => log.round());
