import { BadRequestException, HttpException, NotFoundException, UnauthorizedException } from '@nestjs/common';
import { QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { ApiError } from './api-error';
import { ErrorCatalog, mergeCatalogs } from './error-catalog';
import { statusHint } from './error-hints';
import { isUnavailableError, normalizeError, ValidationFailed } from './normalize-error';

const catalog = new ErrorCatalog({
  budget_ceiling: { status: 422, message: 'Budget exceeds the ceiling', hint: 'Ask for less' },
  rate_limited: { status: 429, message: 'Slow down', hint: 'Wait' },
});

describe('ErrorCatalog', () => {
  it('binds each code to its declared status and default message', () => {
    const e = catalog.error('budget_ceiling', { fields: { ceiling_cents: 100, requested_cents: 200 } });
    expect(e).toBeInstanceOf(ApiError);
    expect([e.status, e.code, e.message]).toEqual([422, 'budget_ceiling', 'Budget exceeds the ceiling']);
    expect(e.extras.fields).toEqual({ ceiling_cents: 100, requested_cents: 200 });
    expect(e.extras.hint).toBe('Ask for less');
    expect(catalog.error('budget_ceiling', { hint: 'Ask for 100 or less' }).extras.hint).toBe('Ask for 100 or less');
  });

  it('lets a raise replace the message and carry headers', () => {
    const e = catalog.error('rate_limited', { message: 'wait', headers: { 'Retry-After': '3' } });
    expect(e.message).toBe('wait');
    expect(normalizeError(e).headers).toEqual({ 'Retry-After': '3' });
  });

  it('refuses merging a code declared with two statuses', () => {
    const other = new ErrorCatalog({ rate_limited: { status: 503, message: 'x', hint: 'h' } });
    expect(() => mergeCatalogs(catalog, other)).toThrow(/rate_limited/);
    expect(mergeCatalogs(catalog, new ErrorCatalog({ extra: { status: 409, message: 'y', hint: 'h' } })).codes()).toEqual([
      'budget_ceiling',
      'rate_limited',
      'extra',
    ]);
  });
});

describe('normalizeError', () => {
  it('keeps a coded error as declared', () => {
    const n = normalizeError(catalog.error('budget_ceiling', { param: 'budget_cents' }));
    expect(n).toMatchObject({ status: 422, code: 'budget_ceiling', kind: 'coded', param: 'budget_cents' });
  });

  it('reports validation failures per field with the first as param', () => {
    const n = normalizeError(new ValidationFailed({ 'postings.0.amount': ['must be a digit string'], name: ['required'] }));
    expect(n).toMatchObject({ status: 400, code: null, kind: 'validation', param: 'postings.0.amount' });
    expect(n.details).toEqual({ fields: { 'postings.0.amount': ['must be a digit string'], name: ['required'] } });
    expect(n.message).toBe('postings.0.amount: must be a digit string');
  });

  it('hints at every failing field, telling absent ones from wrong ones', () => {
    const failure = Object.assign(
      new ValidationFailed({ 'postings.0.amount': ['must be a digit string'], name: ['is required'] }, ['name']),
      { source: 'body' },
    );
    expect(normalizeError(failure).hint).toBe(
      'Fix the body field `postings.0.amount` (must be a digit string), add the required body field `name`, then send the request again',
    );
    const many = new ValidationFailed(Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((k) => [k, ['bad']])));
    expect(normalizeError(many).hint).toMatch(/`d` \(bad\), and 2 more listed in details.fields/);
  });

  it('gives every codeless kind a hint', () => {
    const parseError = Object.assign(new SyntaxError('x'), { status: 400, type: 'entity.parse.failed' });
    const kinds = [parseError, new NotFoundException('Cannot GET /nope'), new Error('boom'), new Error('Connection terminated')];
    for (const e of kinds) expect(normalizeError(e).hint).toMatch(/\w{3,}/);
    expect(statusHint(418)).toMatch(/OpenAPI/);
  });

  it('tells a wrong body value apart from absent fields and bad query parameters', () => {
    const failure = (source: string, missing: string[]) =>
      normalizeError(Object.assign(new ValidationFailed({ amount: ['is required'], name: ['too long'] }, missing), { source }));
    expect(failure('body', ['amount']).badBodyValue).toBe(true);
    expect(failure('body', ['amount', 'name']).badBodyValue).toBe(false);
    expect(failure('query', []).badBodyValue).toBe(false);
  });

  it('recognises an unmatched route apart from a plain 404', () => {
    expect(normalizeError(new NotFoundException('Cannot GET /nope')).kind).toBe('route_not_found');
    expect(normalizeError(new NotFoundException('gone')).kind).toBe('http');
  });

  it('maps body-parser failures to malformed_body with their status', () => {
    const parseError = Object.assign(new SyntaxError('Unexpected end'), { status: 400, type: 'entity.parse.failed' });
    expect(normalizeError(parseError)).toMatchObject({ status: 400, kind: 'malformed_body', message: 'Request body is not valid JSON' });
    const tooLarge = Object.assign(new Error('big'), { status: 413, type: 'entity.too.large' });
    expect(normalizeError(tooLarge)).toMatchObject({ status: 413, kind: 'malformed_body' });
  });

  it('unwraps body-parser failures the Express adapter hands on inside an HttpException', () => {
    const tooLarge = Object.assign(new Error('request entity too large'), { status: 413, statusCode: 413, expose: true, type: 'entity.too.large' });
    expect(normalizeError(new HttpException(tooLarge.message, 413, { cause: tooLarge }))).toMatchObject({ status: 413, kind: 'malformed_body', message: 'Request body too large' });
    const parseError = Object.assign(new SyntaxError('Unexpected end'), { status: 400, type: 'entity.parse.failed' });
    expect(normalizeError(new BadRequestException(parseError.message, { cause: parseError }))).toMatchObject({ status: 400, kind: 'malformed_body' });
  });

  it('maps a body that fails to decompress to a 400, not a 500 (found by pnpm fuzz)', () => {
    // What body-parser raises for `Content-Encoding: gzip` over bytes that are not gzip.
    const zlib = Object.assign(new Error('incorrect header check'), { status: 400, statusCode: 400, expose: true, code: 'Z_DATA_ERROR' });
    expect(normalizeError(zlib)).toMatchObject({ status: 400, kind: 'malformed_body', message: 'Request body does not match its Content-Encoding' });
  });

  it('keeps the status of Nest HTTP exceptions', () => {
    expect(normalizeError(new UnauthorizedException())).toMatchObject({ status: 401, code: null, kind: 'http' });
    expect(normalizeError(new BadRequestException(['a', 'b'])).message).toBe('a; b');
  });

  it('hides anything unexpected behind a 500 and keeps the cause for the log', () => {
    const boom = new Error('db password is hunter2');
    const n = normalizeError(boom);
    expect(n).toMatchObject({ status: 500, code: null, kind: 'internal', message: 'Internal server error' });
    expect(n.cause).toBe(boom);
  });

  it.each([
    ['a pg pool acquisition timeout', new Error('timeout exceeded when trying to connect')],
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['Node 20 AggregateError of refused addresses', new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })], '')],
    ['a dropped connection', new Error('Connection terminated unexpectedly')],
    ['TypeORM wrapping a server shutdown', Object.assign(new Error('query failed'), { driverError: { code: '57P01', message: 'terminating connection' } })],
    ['too many connections', Object.assign(new Error('sorry, too many clients already'), { code: '53300' })],
    ['a deadlock victim past its retries', Object.assign(new Error('query failed'), { driverError: { code: '40P01', message: 'deadlock detected' } })],
    ['a serialization failure past its retries', Object.assign(new Error('query failed'), { driverError: { code: '40001' } })],
    ['a session ended by pg_terminate_backend', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['a crash shutdown', Object.assign(new Error('query failed'), { driverError: { code: '57P02' } })],
    ['a server still starting up', Object.assign(new Error('the database system is starting up'), { code: '57P03' })],
    ['a connection exception class 08 (connection failure)', Object.assign(new Error('query failed'), { driverError: { code: '08006' } })],
    ['a connection exception class 08 (unable to connect)', Object.assign(new Error('x'), { code: '08001' })],
    ['a reset socket', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['TypeORM wrapping a reset socket', Object.assign(new Error('query failed'), { driverError: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) })],
    ['pg closing a client on a server shutdown', new Error('Connection terminated')],
    ['a query on a client whose connection already failed', new Error('Client has encountered a connection error and is not queryable')],
    ['a query on a client that was closed', new Error('Client was closed and is not queryable')],
    ['TypeORM wrapping a query on a failed client', Object.assign(new Error('query failed'), { driverError: new Error('Client has encountered a connection error and is not queryable') })],
    ['a query runner released by its dropped connection', new QueryRunnerAlreadyReleasedError()],
    ['a runner provider released by its dropped connection', new QueryRunnerProviderAlreadyReleasedError()],
  ])('answers %s with 503 and Retry-After, not 500', (_, cause) => {
    const n = normalizeError(cause);
    expect(n).toMatchObject({ status: 503, code: null, kind: 'unavailable', headers: { 'Retry-After': '1' } });
    expect(n.message).not.toContain('5432');
    expect(n.cause).toBe(cause);
  });

  it('keeps ordinary database errors (constraint violations) internal', () => {
    const unique = Object.assign(new Error('duplicate key'), { driverError: { code: '23505' } });
    expect(normalizeError(unique)).toMatchObject({ status: 500, kind: 'internal' });
    expect(isUnavailableError(null)).toBe(false);
  });
});
