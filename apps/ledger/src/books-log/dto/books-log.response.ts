import { ApiProperty } from '@nestjs/swagger';

const HEX = { pattern: '^[0-9a-f]{64}$', description: 'SHA-256, 64 lowercase hex digits' };

export class LogEntryResponse {
  @ApiProperty({ enum: ['log_entry'] }) object: 'log_entry';
  @ApiProperty({ minimum: 0 }) index: number;
  @ApiProperty({ example: 'transaction.created' }) type: string;
  @ApiProperty() resource_id: string;
  @ApiProperty({ format: 'date-time' }) committed_at: string;
  @ApiProperty({ description: 'The RFC 8785 canonical JSON hashed into the tree (docs/verifiable-records.md)' }) leaf: string;
  @ApiProperty(HEX) leaf_hash: string;
  @ApiProperty({ format: 'date-time' }) sealed_at: string;
}

export class LogCheckpointResponse {
  @ApiProperty({ enum: ['log_checkpoint'] }) object: 'log_checkpoint';
  @ApiProperty({ format: 'uuid' }) ledger_id: string;
  @ApiProperty({ minimum: 0 }) tree_size: number;
  @ApiProperty(HEX) root_hash: string;
  @ApiProperty({ format: 'date-time' }) timestamp: string;
  @ApiProperty({ description: 'The key that signed it, in /ledger/v1/log/jwks.json' }) kid: string;
  @ApiProperty({ description: 'Compact JWS (ES256, typ bursar-checkpoint+jwt) whose payload is {ledger_id, tree_size, root_hash, timestamp}' }) token: string;
}

export class InclusionProofResponse {
  @ApiProperty({ enum: ['inclusion_proof'] }) object: 'inclusion_proof';
  @ApiProperty() index: number;
  @ApiProperty() tree_size: number;
  @ApiProperty(HEX) leaf_hash: string;
  @ApiProperty(HEX) root_hash: string;
  @ApiProperty({ type: [String], description: 'RFC 9162 audit path, the leaf\'s own level first' }) audit_path: string[];
}

export class ConsistencyProofResponse {
  @ApiProperty({ enum: ['consistency_proof'] }) object: 'consistency_proof';
  @ApiProperty() from_size: number;
  @ApiProperty() to_size: number;
  @ApiProperty(HEX) from_root: string;
  @ApiProperty(HEX) to_root: string;
  @ApiProperty({ type: [String], description: 'RFC 9162 consistency proof' }) proof: string[];
}

export class LogJwksResponse {
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true }, description: 'Public ES256 keys (JWK), current and retired' })
  keys: Record<string, unknown>[];
}
