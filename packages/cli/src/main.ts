import { CommanderError } from 'commander';
import { Exit, exitCodeOf, ExitWith } from './exitCodes.ts';
import { Output } from './output.ts';
import { createProgram } from './program.ts';

/** Runs the CLI and sets the process exit code: see EXIT_CODE_HELP. */
export async function run(argv: string[]): Promise<number> {
  const program = createProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return Exit.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; a group called without a subcommand showed its help: a usage error.
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return Exit.ok;
      return Exit.usage;
    }
    const code = exitCodeOf(err);
    if (!(err instanceof ExitWith)) {
      new Output(argv.includes('--json')).error(err);
      if (code === Exit.failure && process.env.PAYRAIL_DEBUG && err instanceof Error) {
        process.stderr.write(`${err.stack}\n`);
      }
    }
    return code;
  }
}

const code = await run(process.argv.slice(2));
// Let stdout drain before exiting (pipes are asynchronous).
process.stdout.write('', () => process.exit(code));
