import type { Command } from 'commander';
import type { Row } from './adminClient.ts';
import { adminRequest, output } from './context.ts';

/**
 * How a show command gets its resource: from the id argument (undefined when the command has none, or when it is
 * optional and was left out), the command's options, and the command itself (for credentials and global flags).
 */
export type Fetch<T, O> = (id: string | undefined, opts: O, cmd: Command) => Promise<T>;

export interface ShowSpec<T, O> {
  /** The command's name: `show` in a group, else what the command is called (`status`, `balance`, …). */
  name?: string;
  description: string;
  /**
   * The id argument as help shows it (`<walletId>`; `[transactionId]` when an option can name the resource
   * instead), with its help text if any; none when options alone name the resource.
   */
  argument?: string | [syntax: string, description: string];
  fetch: Fetch<T, O>;
  /** The resource for people; --json prints it as fetched. */
  view: (value: T) => string;
}

/**
 * Declares a command that fetches one resource and prints it: `view` as text, or the resource as JSON with
 * --json. Errors are not caught: main() prints them and picks the exit code from their class (a 404 is exit 5),
 * the same for every command. Returns the command, for the options a fetch reads.
 */
export function showCommand<T, O>(parent: Command, spec: ShowSpec<T, O>): Command {
  const command = parent.command(spec.name ?? 'show').description(spec.description);
  if (spec.argument !== undefined) {
    const [syntax, description] = typeof spec.argument === 'string' ? [spec.argument] : spec.argument;
    command.argument(syntax, description);
  }
  return command.action(async (...args: unknown[]) => {
    // commander passes the arguments, then the options, then the command.
    const cmd = args.at(-1) as Command;
    const opts = args.at(-2) as O;
    const id = spec.argument === undefined ? undefined : (args[0] as string | undefined);
    const value = await spec.fetch(id, opts, cmd);
    output(cmd).result(value, () => spec.view(value));
  });
}

/**
 * A fetch from the admin API: GET `path` with the admin token. A path built from the id gets it URL-encoded. The
 * operation that errors name is the command's path (`wallet show`), as the other operator commands name theirs.
 */
export function adminGet(path: string | ((encodedId: string) => string)): Fetch<Row, unknown> {
  return (id, _opts, cmd) =>
    // A path built from the id belongs to a command whose id argument is required: commander has checked it.
    adminRequest(
      cmd,
      'GET',
      typeof path === 'string' ? path : path(encodeURIComponent(id ?? '')),
      undefined,
      commandPath(cmd),
    );
}

/** `wallet show` for `payrail wallet show`: the names below the program's. */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
