import { Get, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import { ApiData, ApiPage } from '../common/openapi-responses';
import { CurrentWorkspace, RequireCapability, WorkspaceRoutes } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { AuditLogConsistencyProofSchema, AuditLogCheckpointSchema, AuditLogEntrySchema, AuditLogInclusionProofSchema } from './audit-log.schema';
import { AuditLogService } from './audit-log.service';
import { ConsistencyProofQueryDto, InclusionProofQueryDto, ListLogCheckpointsDto, ListLogEntriesDto } from './dto/audit-log-queries.dto';

/**
 * The workspace's audit log as a verifiable Merkle log: entries with their leaves, signed
 * checkpoints and RFC 9162 proofs, readable by every role (docs/verifiable-records.md).
 */
@WorkspaceRoutes('audit_log')
export class AuditLogController {
  constructor(private readonly auditLog: AuditLogService) {}

  @Get('entries')
  @RequireCapability('read')
  @ApiOperation({ summary: 'Sealed entries oldest first, after an index; next_cursor is passed back as after' })
  @ApiPage(AuditLogEntrySchema, 'after')
  entries(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Query() query: ListLogEntriesDto) {
    return this.auditLog.entries(workspace.id, query);
  }

  @Get('checkpoints/latest')
  @RequireCapability('read')
  @ApiOperation({ summary: 'The newest signed checkpoint; 404 before the first one' })
  @ApiData(AuditLogCheckpointSchema)
  async latest(@CurrentWorkspace() { workspace }: WorkspaceAccess) {
    return { data: await this.auditLog.latestCheckpoint(workspace.id) };
  }

  @Get('checkpoints')
  @RequireCapability('read')
  @ApiOperation({ summary: 'Signed checkpoints newest first; next_cursor is passed back as cursor' })
  @ApiPage(AuditLogCheckpointSchema, 'cursor')
  checkpoints(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Query() query: ListLogCheckpointsDto) {
    return this.auditLog.checkpoints(workspace.id, query);
  }

  @Post('checkpoints')
  @RequireCapability('manage_policy')
  @ApiOperation({ summary: 'Seals every committed audit event, then signs the log now; answers the existing checkpoint when the log has not grown since' })
  @ApiData(AuditLogCheckpointSchema, 201)
  @ApiResponse({ status: 422, description: 'audit_log_empty: nothing to sign yet' })
  @ApiResponse({ status: 503, description: 'audit_log_signing_not_configured: cosigning (COSIGN_ISSUER) is off, so no key signs checkpoints' })
  async sign(@CurrentWorkspace() { workspace }: WorkspaceAccess) {
    return { data: await this.auditLog.checkpointNow(workspace.id) };
  }

  @Get('proofs/inclusion')
  @RequireCapability('read')
  @ApiOperation({ summary: 'RFC 9162 audit path of entry index in the tree of tree_size entries' })
  @ApiData(AuditLogInclusionProofSchema)
  @ApiResponse({ status: 422, description: 'tree_size_out_of_range (larger than the sealed log) or index_out_of_range (not below tree_size)' })
  async inclusion(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Query() query: InclusionProofQueryDto) {
    return { data: await this.auditLog.inclusion(workspace.id, query.index, query.tree_size) };
  }

  @Get('proofs/consistency')
  @RequireCapability('read')
  @ApiOperation({ summary: 'RFC 9162 consistency proof from the tree of from_size entries to the tree of to_size' })
  @ApiData(AuditLogConsistencyProofSchema)
  @ApiResponse({ status: 422, description: 'tree_size_out_of_range: to_size larger than the sealed log, or from_size larger than to_size' })
  async consistency(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Query() query: ConsistencyProofQueryDto) {
    return { data: await this.auditLog.consistency(workspace.id, query.from_size, query.to_size) };
  }
}
