import { ApiProperty } from '@nestjs/swagger';

const HEX = { type: String, pattern: '^[0-9a-f]{64}$' };

export class AuditLogEntrySchema {
  @ApiProperty({ type: 'integer', description: "Position in the workspace's log, from 0, gap-free" }) index: number;
  @ApiProperty({ example: 'approval.granted', description: "The audit event's action" }) type: string;
  @ApiProperty({ description: "The audit event's subject_id" }) resource_id: string;
  @ApiProperty({ format: 'date-time', description: "The audit event's created_at" }) committed_at: string;
  @ApiProperty({ description: 'The RFC 8785 canonical JSON that was hashed (docs/verifiable-records.md)' }) leaf: string;
  @ApiProperty({ ...HEX, description: 'SHA-256(0x00 || leaf), lowercase hex' }) leaf_hash: string;
}

export class AuditLogCheckpointSchema {
  @ApiProperty({ format: 'uuid' }) workspace_id: string;
  @ApiProperty({ type: 'integer' }) tree_size: number;
  @ApiProperty({ ...HEX, description: 'RFC 9162 root of the first tree_size entries' }) root_hash: string;
  @ApiProperty({ description: "The signing key's kid, published at /.well-known/jwks.json" }) kid: string;
  @ApiProperty({ description: 'Compact JWS (ES256, typ bursar-checkpoint+jwt) of {workspace_id, tree_size, root_hash, timestamp}' }) token: string;
  @ApiProperty({ format: 'date-time' }) signed_at: string;
}

export class AuditLogInclusionProofSchema {
  @ApiProperty({ type: 'integer' }) index: number;
  @ApiProperty({ type: 'integer' }) tree_size: number;
  @ApiProperty(HEX) leaf_hash: string;
  @ApiProperty({ ...HEX, description: 'Root of the tree of tree_size entries' }) root_hash: string;
  @ApiProperty({ type: [String], description: 'RFC 9162 audit path, lowercase hex, the leaf\'s own level first' }) audit_path: string[];
}

export class AuditLogConsistencyProofSchema {
  @ApiProperty({ type: 'integer' }) from_size: number;
  @ApiProperty({ type: 'integer' }) to_size: number;
  @ApiProperty(HEX) from_root: string;
  @ApiProperty(HEX) to_root: string;
  @ApiProperty({ type: [String], description: 'RFC 9162 consistency proof, lowercase hex' }) proof: string[];
}
