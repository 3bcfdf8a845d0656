import { Module } from '@nestjs/common';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { FundsController } from './funds.controller';
import { FundsRepository } from './funds.repository';

@Module({ imports: [WorkspacesModule], controllers: [FundsController], providers: [FundsRepository] })
export class FundsModule {}
