import { Global, Module } from '@nestjs/common';
import { AuditRepository } from './audit.repository';

/** Global because every writing module appends to the audit log. */
@Global()
@Module({ providers: [AuditRepository], exports: [AuditRepository] })
export class AuditModule {}
