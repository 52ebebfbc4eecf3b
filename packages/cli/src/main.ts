import { CommanderError, type Command } from 'commander';
import { Exit, exitCodeOf, ExitWith, UsageError } from './exitCodes.ts';
import { annotate, Output } from './output.ts';
import { createProgram } from './program.ts';

/** Runs the CLI and sets the process exit code: see EXIT_CODE_HELP. */
export async function run(argv: string[]): Promise<number> {
  const program = createProgram();
  const json = argv.includes('--json');
  if (json) {
    // A script reading stderr as JSON gets JSON for argument errors too: commander's own text (and the help it
    // shows for a group without a subcommand) is replaced by the {"error": …} line below.
    const all = (cmd: Command): Command[] => [cmd, ...cmd.commands.flatMap(all)];
    for (const cmd of all(program)) cmd.configureOutput({ writeErr: () => undefined });
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return Exit.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; a group called without a subcommand showed its help: a usage error.
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return Exit.ok;
      if (json) new Output(true).error(usageErrorOf(err), Exit.usage);
      return Exit.usage;
    }
    const code = exitCodeOf(err);
    if (!(err instanceof ExitWith)) {
      new Output(json).error(err, code);
      if (code === Exit.failure && process.env.PAYRAIL_DEBUG && err instanceof Error) {
        process.stderr.write(`${err.stack}\n`);
      }
    }
    return code;
  }
}

/** A commander error as the CLI's own usage error: its text without commander's "error: " prefix, and its code. */
function usageErrorOf(err: CommanderError): UsageError {
  const message =
    err.code === 'commander.help'
      ? 'a subcommand is required here: add --help to list them'
      : err.message.replace(/^error: /, '');
  return annotate(new UsageError(message), '', { code: err.code });
}

const code = await run(process.argv.slice(2));
// Let stdout drain before exiting (pipes are asynchronous).
process.stdout.write('', () => process.exit(code));
