import { Injectable } from '@nestjs/common';
import { isUniqueViolation, retryingTransaction } from '@bursar/service-kit';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { personActor } from '../audit/audit-subjects';
import { AuditService } from '../audit/audit.service';
import { notFound, unprocessable } from '../common/control-errors';
import type { Identity } from '../identity/identity-token.verifier';
import { CreateWorkspaceDto } from './dto/create-workspace.dto';
import { WorkspaceExportRepository } from './workspace-export.repository';
import { Capability, capabilitiesOf } from './workspace-roles';
import { WorkspaceErrors } from './workspace.errors';
import { WorkspaceAccess, WorkspacesRepository } from './workspaces.repository';

/** A workspace as its caller sees it: with the caller's role and what that role may do. */
export function presentWorkspace({ workspace, membership }: WorkspaceAccess) {
  return {
    id: workspace.id,
    name: workspace.name,
    slug: workspace.slug,
    role: membership.role,
    capabilities: capabilitiesOf(membership.role),
    created_at: workspace.created_at,
    updated_at: workspace.updated_at,
  };
}

function slugFrom(name: string): string {
  const base = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  return base || 'workspace';
}

@Injectable()
export class WorkspacesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly workspaces: WorkspacesRepository,
    private readonly audit: AuditService,
    private readonly exports: WorkspaceExportRepository,
  ) {}

  async create(identity: Identity, dto: CreateWorkspaceDto, traceId: string): Promise<WorkspaceAccess> {
    try {
      return await this.insert(identity, dto.name, dto.slug ?? slugFrom(dto.name), traceId);
    } catch (e) {
      if (!isUniqueViolation(e, 'workspaces_slug_key')) throw e;
      if (dto.slug) throw unprocessable(`The slug ${dto.slug} is taken`);
      // A derived slug only needs to be unique, not pretty.
      return this.insert(identity, dto.name, `${slugFrom(dto.name)}-${randomBytes(3).toString('hex')}`, traceId);
    }
  }

  listMine(identity: Identity): Promise<WorkspaceAccess[]> {
    return this.workspaces.listAccess(identity.sub);
  }

  /**
   * Deletes the workspace once the caller types its slug again: its agents' keys stop working and
   * open invitations die with it; the rows (and the audit log) stay behind for the record.
   */
  delete(access: WorkspaceAccess, confirm: string, traceId: string): Promise<void> {
    if (confirm !== access.workspace.slug) throw unprocessable(`confirm must equal the workspace slug (${access.workspace.slug})`);
    return retryingTransaction(this.dataSource, async (em) => {
      if (!(await this.workspaces.softDelete(em, access.workspace.id))) throw notFound('workspace');
      await this.audit.append(em, access.workspace.id, {
        subject_type: 'Workspace',
        subject_id: access.workspace.id,
        action: 'workspace.deleted',
        trace_id: traceId,
        snapshot: access.workspace,
        actor: personActor(access.membership.user_sub),
      });
    });
  }

  /** Everything the workspace holds, as one document. */
  async export(access: WorkspaceAccess) {
    const records = await this.exports.read(access.workspace.id);
    const counts = Object.fromEntries(Object.entries(records).map(([name, rows]) => [name, rows.length]));
    return { workspace: presentWorkspace(access), exported_at: new Date(), counts, ...records };
  }

  /** The caller's membership of the workspace, refused as 404 outside it and 403 without `capability`. */
  async access(identity: Identity, slug: string, capability: Capability): Promise<WorkspaceAccess> {
    const access = await this.workspaces.findAccess(identity.sub, slug);
    if (!access) throw notFound('workspace');
    if (!capabilitiesOf(access.membership.role).includes(capability)) {
      throw WorkspaceErrors.error('insufficient_role', { message: `This needs the ${capability} capability` });
    }
    return access;
  }

  private insert(identity: Identity, name: string, slug: string, traceId: string): Promise<WorkspaceAccess> {
    return retryingTransaction(this.dataSource, async (em) => {
      const workspace = await this.workspaces.insertWorkspace(em, { name, slug });
      const membership = await this.workspaces.insertMembership(em, workspace.id, {
        user_sub: identity.sub,
        email: identity.email,
        role: 'owner',
      });
      const trace = { trace_id: traceId, actor: personActor(identity.sub) };
      await this.audit.append(em, workspace.id, {
        subject_type: 'Workspace',
        subject_id: workspace.id,
        action: 'workspace.created',
        snapshot: workspace,
        ...trace,
      });
      await this.audit.append(em, workspace.id, {
        subject_type: 'WorkspaceMembership',
        subject_id: membership.id,
        action: 'membership.created',
        snapshot: membership,
        ...trace,
      });
      return { workspace, membership };
    });
  }
}
