import { Module } from '@nestjs/common';
import { registerFastValidator } from '@bursar/service-kit';
import { CosignController } from './cosign.controller';
import { CosignService } from './cosign.service';
import { CosignKeysService } from './cosign-keys.service';
import { CosignaturesRepository } from './cosignatures.repository';
import { ConsumeCosignatureDto, VerifyCosignatureDto } from './dto/cosignature.dto';
import { acceptConsumeCosignature, acceptVerifyCosignature } from './dto/cosignature.validator';

@Module({
  controllers: [CosignController],
  providers: [CosignKeysService, CosignaturesRepository, CosignService],
  exports: [CosignService, CosignKeysService],
})
export class CosignModule {
  constructor() {
    registerFastValidator(VerifyCosignatureDto, acceptVerifyCosignature);
    registerFastValidator(ConsumeCosignatureDto, acceptConsumeCosignature);
  }
}
