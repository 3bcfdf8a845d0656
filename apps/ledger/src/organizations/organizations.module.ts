import { Global, Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { OrganizationCache } from './organization-cache';
import { OrganizationsController } from './organizations.controller';
import { OrganizationsRepository } from './organizations.repository';
import { OrganizationsService } from './organizations.service';

/** Global because BearerAuthGuard, instantiated in every feature module, checks the tenant's status. */
@Global()
@Module({
  imports: [AuthModule],
  controllers: [OrganizationsController],
  providers: [OrganizationsRepository, OrganizationsService, OrganizationCache],
  exports: [OrganizationsService],
})
export class OrganizationsModule {}
