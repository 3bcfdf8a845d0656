import { Module } from '@nestjs/common';
import { CosignController } from './cosign.controller';
import { CosignService } from './cosign.service';
import { CosignKeysRepository } from './cosign-keys.repository';
import { CosignKeysService } from './cosign-keys.service';
import { CosignaturesRepository } from './cosignatures.repository';

@Module({
  controllers: [CosignController],
  providers: [CosignKeysRepository, CosignKeysService, CosignaturesRepository, CosignService],
  exports: [CosignService, CosignKeysService],
})
export class CosignModule {}
