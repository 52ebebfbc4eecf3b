import { createInterface } from 'node:readline';
import { Option, type Command } from 'commander';
import { adminRequest, output } from '../../context.ts';
import { UsageError } from '../../exitCodes.ts';
import { cell, keyValues, table } from '../../output.ts';

/** All of standard input, without its final line break (`printf '%s' pw | …` and `echo pw | …` both work). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Asks on the terminal without echoing what is typed. */
function askHidden(question: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    const mutable = rl as unknown as { _writeToOutput: (text: string) => void };
    let asked = false;
    mutable._writeToOutput = (text: string) => {
      if (!asked) process.stderr.write(text);
    };
    rl.question(question, (answer) => {
      rl.close();
      process.stderr.write('\n');
      resolve(answer);
    });
    asked = true;
  });
}

async function password(opts: { passwordStdin?: boolean }): Promise<string> {
  // No terminal to ask on (a pipe, a file, a script): standard input is the password, as with --password-stdin.
  if (opts.passwordStdin || !process.stdin.isTTY) {
    const piped = await readStdin();
    if (!piped) {
      throw new UsageError(
        'no password on standard input: pipe it (printf \'%s\' "$PASSWORD" | payrail operator create … ' +
          '--password-stdin), or run the command in a terminal to be asked',
      );
    }
    return piped;
  }
  const first = await askHidden('Password (at least 10 characters): ');
  const again = await askHidden('Password again: ');
  if (first !== again) throw new UsageError('the two passwords differ');
  return first;
}

const view = (o: Record<string, unknown>) =>
  keyValues([
    ['Operator ID', cell(o.operator_id)],
    ['E-mail', cell(o.email)],
    ['Name', cell(o.name)],
    ['Role', cell(o.role)],
    ['Disabled', cell(o.disabled)],
  ]);

/**
 * `payrail operator …`: console accounts, through the admin API with the admin token (so that it works while
 * the server runs, on either database engine).
 */
export function operatorCommands(program: Command): void {
  const operator = program.command('operator').description('Console operator accounts (admin API)');

  operator
    .command('create')
    .description('Create a console operator; asks for the password on a terminal, else reads it from standard input')
    .argument('<email>', 'sign-in address of the operator')
    .addOption(
      new Option('--role <role>', 'viewer reads; finance also credits, resolves, replays; admin manages all')
        .choices(['viewer', 'finance', 'admin'])
        .makeOptionMandatory(),
    )
    .option('--name <name>', 'display name (default: the e-mail address)')
    .option(
      '--password-stdin',
      'read the password from standard input instead of asking (the default when stdin is not a terminal)',
    )
    .addHelpText(
      'after',
      `
Examples:
  payrail operator create asha@example.com --role admin                  # asks twice, without echo
  printf '%s' "$PASSWORD" | payrail operator create ravi@example.com --role finance --password-stdin`,
    )
    .action(async (email: string, opts: { role: string; name?: string; passwordStdin?: boolean }, cmd: Command) => {
      const body = {
        email,
        role: opts.role,
        password: await password(opts),
        ...(opts.name ? { name: opts.name } : {}),
      };
      const o = await adminRequest(cmd, 'POST', '/admin/v1/operators', body, 'operator create');
      output(cmd).result(o, () => `${view(o)}\n\nThe operator signs in at /console.`);
    });

  operator
    .command('list')
    .description('List console operators')
    .action(async (_opts, cmd: Command) => {
      const page = await adminRequest(cmd, 'GET', '/admin/v1/operators', undefined, 'operator list');
      const rows = (page.data as Record<string, unknown>[]) ?? [];
      output(cmd).result(page, () =>
        table(rows, [
          ['ID', (o) => cell(o.operator_id)],
          ['E-MAIL', (o) => cell(o.email)],
          ['NAME', (o) => cell(o.name)],
          ['ROLE', (o) => cell(o.role)],
          ['DISABLED', (o) => cell(o.disabled)],
        ]),
      );
    });

  operator
    .command('disable')
    .description('Disable an operator: their sessions end at once')
    .argument('<operatorId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const o = await adminRequest(
        cmd,
        'PATCH',
        `/admin/v1/operators/${encodeURIComponent(id)}`,
        { disabled: true },
        'operator disable',
      );
      output(cmd).result(o, () => view(o));
    });
}
