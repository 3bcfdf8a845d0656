import { ApiProperty } from '@nestjs/swagger';

/** A completed sign-in: the identity provider's tokens, relayed. */
export class SignedInSchema {
  @ApiProperty({ description: 'Identity token for the workspace routes' }) access_token: string;
  @ApiProperty({ type: String, nullable: true }) refresh_token: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: "The provider's user record" }) user: object | null;
}
