/** One environment variable a tool reads: what it means, and its default when it has a fixed one. */
export interface ToolSetting {
  help: string;
  default?: string;
}

/** What `--help` prints for a tool started by a `pnpm` script: the one home of its settings' defaults. */
export interface ToolUsage<Names extends string> {
  command: string;
  summary: string;
  env: Record<Names, ToolSetting>;
}

/** The usage text: what the tool does, then each variable with its default. */
export function toolUsageText(usage: ToolUsage<string>): string {
  const width = Math.max(...Object.keys(usage.env).map((n) => n.length));
  const lines = Object.entries<ToolSetting>(usage.env).map(
    ([name, s]) => `  ${name.padEnd(width)}  ${s.help}${s.default === undefined ? '' : ` (default ${s.default})`}`,
  );
  return [`usage: ${usage.command} [--help]`, '', usage.summary, '', 'Settings (environment variables):', ...lines, ''].join('\n');
}

/**
 * The first thing a tool does: with `--help` or `-h` it prints its usage and exits 0; with any other
 * argument (it takes none: settings are environment variables) it prints the usage to stderr and
 * exits 2, so a mistyped flag never starts a campaign. Otherwise returns each variable's value, or
 * its default.
 */
export function toolSettings<Names extends string>(
  usage: ToolUsage<Names>,
  argv: string[] = process.argv.slice(2),
  env: NodeJS.ProcessEnv = process.env,
): Record<Names, string | undefined> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(toolUsageText(usage));
    process.exit(0);
  }
  if (argv.length) {
    process.stderr.write(`${usage.command} takes no arguments (got ${argv.join(' ')}); its settings are environment variables.\n\n${toolUsageText(usage)}`);
    process.exit(2);
  }
  const names = Object.keys(usage.env) as Names[];
  return Object.fromEntries(names.map((n) => [n, env[n] || usage.env[n].default])) as Record<Names, string | undefined>;
}
