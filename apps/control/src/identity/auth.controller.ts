import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiData } from '../common/openapi-responses';
import { RefreshDto, SignInDto, VerifyEmailDto, VerifyMfaDto } from './dto/sign-in.dto';
import { SignInClient } from './sign-in.client';
import { SignedInSchema } from './signed-in.schema';

/** Password sign-in through the configured identity provider; answers carry its tokens. */
@ApiTags('sign-in')
@Controller('v1/auth')
export class AuthController {
  constructor(private readonly signIn: SignInClient) {}

  @Post('signin')
  @HttpCode(200)
  @ApiData(SignedInSchema)
  async signin(@Body() dto: SignInDto) {
    return { data: await this.signIn.authenticate({ grant_type: 'password', email: dto.email, password: dto.password }) };
  }

  @Post('refresh')
  @HttpCode(200)
  @ApiData(SignedInSchema)
  async refresh(@Body() dto: RefreshDto) {
    return { data: await this.signIn.authenticate({ grant_type: 'refresh_token', refresh_token: dto.refresh_token }) };
  }

  @Post('verify_mfa')
  @HttpCode(200)
  @ApiData(SignedInSchema)
  async verifyMfa(@Body() dto: VerifyMfaDto) {
    return { data: await this.signIn.authenticate({ grant_type: 'urn:workos:oauth:grant-type:mfa-totp', ...dto }) };
  }

  @Post('verify_email')
  @HttpCode(200)
  @ApiData(SignedInSchema)
  async verifyEmail(@Body() dto: VerifyEmailDto) {
    return { data: await this.signIn.authenticate({ grant_type: 'urn:workos:oauth:grant-type:email-verification:code', ...dto }) };
  }
}
