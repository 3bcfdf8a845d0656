import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, Length } from 'class-validator';

export class SignInDto {
  @ApiProperty()
  @IsEmail()
  email: string;

  @ApiProperty()
  @IsString()
  @Length(1, 1000)
  password: string;
}

export class RefreshDto {
  @ApiProperty()
  @IsString()
  @Length(1, 4000)
  refresh_token: string;
}

export class VerifyEmailDto {
  @ApiProperty()
  @IsString()
  @Length(1, 4000)
  pending_authentication_token: string;

  @ApiProperty()
  @IsString()
  @Length(1, 100)
  code: string;
}

export class VerifyMfaDto extends VerifyEmailDto {
  @ApiProperty()
  @IsString()
  @Length(1, 200)
  authentication_challenge_id: string;
}
