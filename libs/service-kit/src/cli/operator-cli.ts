import { ApiError } from '@bursar/errors';
import { ConfigError } from '../config/load-config';

/** One operator command: its options as shown in help, and what it does. */
export interface OperatorCommand {
  options: string;
  summary: string;
}

export type OperatorCommands = Record<string, OperatorCommand>;

/** A bad command line: answered with the command's usage and exit code 2. */
export class OperatorUsageError extends Error {}

function line(program: string, name: string, command: OperatorCommand): string {
  return [program, name, command.options].filter(Boolean).join(' ');
}

/**
 * Help as JSON, or undefined when the command line asks for none: with a known command first, that
 * command's usage; otherwise every command's.
 */
export function operatorHelp(program: string, commands: OperatorCommands, argv: string[]): Record<string, unknown> | undefined {
  if (!argv.includes('--help') && !argv.includes('-h')) return undefined;
  const name = argv.find((a) => !a.startsWith('-'));
  if (name && commands[name]) return { command: name, usage: line(program, name, commands[name]), summary: commands[name].summary };
  return {
    usage: [`${program} <command> [options]`, ...Object.entries(commands).map(([n, c]) => `  ${line(program, n, c)}    ${c.summary}`)],
    settings: 'Read from the environment; what is missing there comes from the settings file `pnpm start` writes (BURSAR_DATA_DIR, default .data/settings.json).',
  };
}

function failure(err: unknown, program: string, commands: OperatorCommands, argv: string[]): Record<string, unknown> {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | undefined)?.code;
  if (err instanceof OperatorUsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
    const name = argv.find((a) => !a.startsWith('-'));
    const usage = name && commands[name] ? line(program, name, commands[name]) : `${program} --help`;
    return { code: 'usage', message, usage };
  }
  if (err instanceof ConfigError) {
    return {
      code: 'configuration',
      message,
      hint: 'Set the variable, or start the stack once with `pnpm start` (it writes the settings file this command reads).',
    };
  }
  if (err instanceof ApiError) return { code: err.code ?? 'failed', message, ...(err.extras.hint && { hint: err.extras.hint }) };
  if (code === 'ECONNREFUSED') return { code: 'database_unreachable', message, hint: 'Is `pnpm start` (or your database) running?' };
  return { code: 'failed', message };
}

/**
 * Refuses a command line no command accepts before any setting is read: an unknown or missing
 * command, or an option the command's usage does not name.
 */
function checkCommandLine(commands: OperatorCommands, argv: string[]): void {
  const [name] = argv;
  if (!name || name.startsWith('-')) throw new OperatorUsageError('a command is required');
  const command = commands[name];
  if (!command) throw new OperatorUsageError(`unknown command ${name}`);
  const known = new Set([...command.options.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]));
  const unknown = argv.filter((a) => a.startsWith('--') && !known.has(a.slice(2).split('=')[0]));
  if (unknown.length) throw new OperatorUsageError(`${name} takes no ${unknown.join(', ')}`);
}

/**
 * The whole entry point of an operator CLI: `--help` (overall or per command) and a bad command line
 * are answered without reading any setting; otherwise `run` does the work. Its result prints as JSON on stdout; a failure prints as
 * `{"error": {code, message, ...}}` on stderr with exit code 2 (bad command line) or 1. A check whose report says `ok: false`
 * (verify-log) prints that report on stdout and exits 1.
 */
export function runOperatorCli(program: string, commands: OperatorCommands, run: (argv: string[]) => Promise<unknown>): void {
  const argv = process.argv.slice(2);
  const work = async () => {
    const help = operatorHelp(program, commands, argv);
    if (help) return help;
    checkCommandLine(commands, argv);
    return run(argv);
  };
  // One JSON document per line, so scripts can read it line by line (`| jq` pretty-prints it).
  work().then(
    (result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      if (typeof result === 'object' && result !== null && (result as { ok?: unknown }).ok === false) process.exitCode = 1;
    },
    (err: unknown) => {
      const error = failure(err, program, commands, argv);
      process.stderr.write(`${JSON.stringify({ error })}\n`);
      process.exitCode = error.code === 'usage' ? 2 : 1;
    },
  );
}
