import { Controller, Get, Header, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { ConsistencyProofQuery, InclusionProofQuery, ListLogCheckpointsQuery, ListLogEntriesQuery } from './dto/books-log.query';
import { ConsistencyProofResponse, InclusionProofResponse, LogCheckpointResponse, LogEntryResponse, LogJwksResponse } from './dto/books-log.response';
import { hex, presentLogCheckpoint, presentLogEntry } from './books-log.presenter';
import { BooksLogService } from './books-log.service';

@LedgerApiController('log', 'Books log')
export class BooksLogController {
  constructor(private readonly log: BooksLogService) {}

  @Get('entries')
  @RequireScope('ledger:read')
  @ApiOperation({ summary: "The ledger's books log, oldest first: every sealed change with its leaf and leaf hash" })
  @ApiEnveloped(LogEntryResponse, { list: true })
  async entries(@CurrentLedger() ledger: LedgerScope, @Query() query: ListLogEntriesQuery) {
    const rows = await this.log.entries(ledger, { afterIndex: query.after, limit: query.limit + 1, resourceId: query.resource_id });
    const data = rows.slice(0, query.limit).map(presentLogEntry);
    const more = rows.length > query.limit;
    return new ListPage(data, more, more ? String(data[data.length - 1].index) : null);
  }

  @Get('checkpoints/latest')
  @RequireScope('ledger:read')
  @ApiOperation({ summary: 'The newest signed checkpoint (404 before the first one)' })
  @ApiEnveloped(LogCheckpointResponse)
  async latest(@CurrentLedger() ledger: LedgerScope) {
    const row = await this.log.latestCheckpoint(ledger);
    if (!row) throw LedgerErrors.error('not_found', { message: 'This ledger has no checkpoint yet' });
    return presentLogCheckpoint(row);
  }

  @Get('checkpoints')
  @RequireScope('ledger:read')
  @ApiOperation({ summary: 'Signed checkpoints, newest first' })
  @ApiEnveloped(LogCheckpointResponse, { list: true })
  async checkpoints(@CurrentLedger() ledger: LedgerScope, @Query() query: ListLogCheckpointsQuery) {
    const rows = await this.log.checkpoints(ledger, { beforeSize: query.cursor === undefined ? undefined : Number(query.cursor), limit: query.limit + 1 });
    const data = rows.slice(0, query.limit).map(presentLogCheckpoint);
    const more = rows.length > query.limit;
    return new ListPage(data, more, more ? String(data[data.length - 1].tree_size) : null);
  }

  @Post('checkpoints')
  @HttpCode(201)
  @RequireScope('ledger:write')
  @ApiOperation({
    summary: 'Seal every committed change and sign a checkpoint of the log now',
    description: 'Answers the checkpoint already signed when the log has not grown since; 409 checkpoint_unavailable for an empty log.',
  })
  @ApiEnveloped(LogCheckpointResponse, { status: 201 })
  async checkpointNow(@CurrentLedger() ledger: LedgerScope) {
    return presentLogCheckpoint(await this.log.checkpointNow(ledger));
  }

  @Get('proofs/inclusion')
  @RequireScope('ledger:read')
  @ApiOperation({ summary: 'RFC 9162 inclusion proof (audit path) of the entry at `index` in the tree of `tree_size` (422 log_size_exceeded past the sealed size)' })
  @ApiEnveloped(InclusionProofResponse)
  async inclusion(@CurrentLedger() ledger: LedgerScope, @Query() query: InclusionProofQuery) {
    const proof = await this.log.inclusion(ledger, query.index, query.tree_size);
    return {
      object: 'inclusion_proof' as const,
      index: query.index,
      tree_size: query.tree_size,
      leaf_hash: proof.leafHash.toString('hex'),
      root_hash: proof.rootHash.toString('hex'),
      audit_path: hex(proof.path),
    };
  }

  @Get('proofs/consistency')
  @RequireScope('ledger:read')
  @ApiOperation({ summary: 'RFC 9162 consistency proof that the tree of `from_size` is a prefix of the tree of `to_size`' })
  @ApiEnveloped(ConsistencyProofResponse)
  async consistency(@CurrentLedger() ledger: LedgerScope, @Query() query: ConsistencyProofQuery) {
    const proof = await this.log.consistency(ledger, query.from_size, query.to_size);
    return {
      object: 'consistency_proof' as const,
      from_size: query.from_size,
      to_size: query.to_size,
      from_root: proof.fromRoot.toString('hex'),
      to_root: proof.toRoot.toString('hex'),
      proof: hex(proof.path),
    };
  }
}

/** The checkpoint keys, for anyone: no credential, no envelope (a plain RFC 7517 key set). */
@ApiTags('Books log')
@Controller()
export class BooksLogKeysController {
  constructor(private readonly log: BooksLogService) {}

  @Get(['ledger/v1/log/jwks.json', '.well-known/jwks.json'])
  @Header('Cache-Control', 'public, max-age=60')
  @ApiOperation({ summary: 'The keys that sign checkpoints (JWKS), current and retired' })
  @ApiOkResponse({ type: LogJwksResponse })
  jwks() {
    return this.log.keys.jwks();
  }
}
