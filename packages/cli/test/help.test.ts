import { CommanderError, type Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../src/program.ts';
import { cli } from './support.ts';

// No server needed: help, usage errors and missing credentials.
describe('help', () => {
  it('every command and group has --help (in process), and the binary answers it with exit 0', async () => {
    const paths: string[][] = [];
    const walk = (cmd: Command, path: string[]) => {
      paths.push(path);
      for (const sub of cmd.commands) if (sub.name() !== 'help') walk(sub, [...path, sub.name()]);
    };
    walk(createProgram(), []);
    expect(paths.length).toBeGreaterThan(30);
    for (const path of paths) {
      const program = createProgram();
      let text = '';
      const all = (cmd: Command): Command[] => [cmd, ...cmd.commands.flatMap(all)];
      for (const cmd of all(program))
        cmd.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
      const err = await program.parseAsync([...path, '--help'], { from: 'user' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CommanderError);
      expect({ path, code: (err as CommanderError).exitCode }).toEqual({ path, code: 0 });
      expect(text).toContain(`Usage: payrail ${path.join(' ')}`.trimEnd());
    }
    const spawned = await Promise.all([[], ['payout', 'send']].map((p) => cli([...p, '--help'])));
    for (const r of spawned) {
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Usage: payrail');
    }
    expect(spawned[0]?.stdout).toContain('Exit codes:');
  });

  it('unknown commands and options are usage errors (exit 2)', async () => {
    const [unknown, bogus, group, version] = await Promise.all([
      cli(['nonsense']),
      cli(['payout', 'status', '--bogus']),
      cli(['wallet']),
      cli(['--version']),
    ]);
    expect(unknown.code).toBe(2);
    expect(bogus.code).toBe(2);
    expect(group.code).toBe(2);
    expect(version.stdout.trim()).toBe('0.1.0');
  });

  it('with --json, argument errors are JSON on stderr too ({"error": …}, exit 2), and stdout stays empty', async () => {
    const [unknownOption, badAmount, noSubcommand, missingOption, human] = await Promise.all([
      cli(['payout', 'status', '--bogus', '--json']),
      cli(['payout', 'send', '--amount', '10.001', '--json']),
      cli(['wallet', '--json']),
      cli(['bulk', 'status', '--json']),
      cli(['payout', 'send', '--amount', '10.001']),
    ]);
    for (const [r, code, message] of [
      [unknownOption, 'commander.unknownOption', "unknown option '--bogus'"],
      [badAmount, 'commander.invalidArgument', "option '--amount <rupees>' argument '10.001' is invalid"],
      [noSubcommand, 'commander.help', 'a subcommand is required here'],
      [missingOption, 'commander.missingMandatoryOptionValue', "required option '--batch-id <id>' not specified"],
    ] as const) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      // One JSON line and nothing else: no commander text, no help.
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.errJson.error).toMatchObject({ type: 'UsageError', code, exitCode: 2 });
      expect(r.errJson.error.message).toContain(message);
    }
    // Without --json, commander's own text as before.
    expect(human.code).toBe(2);
    expect(human.stderr).toMatch(/^error: option '--amount <rupees>' argument '10\.001' is invalid/);
  });

  it('missing credentials are usage errors that name the variables (exit 2); no server is exit 6', async () => {
    const [merchant, operator, down] = await Promise.all([
      cli(['balance', 'WL01JD3K8Q5W2V7X9Y0Z1A2B3C4D', '--json'], { PAYRAIL_URL: 'http://127.0.0.1:9' }),
      cli(['ledger', 'verify'], { PAYRAIL_URL: 'http://127.0.0.1:9', PAYRAIL_DATA_DIR: '/nonexistent' }),
      cli(['ledger', 'verify', '--json'], { PAYRAIL_URL: 'http://127.0.0.1:9', PAYRAIL_ADMIN_TOKEN: 'x' }),
    ]);
    expect(merchant.code).toBe(2);
    expect(merchant.errJson.error.message).toContain('PAYRAIL_API_KEY');
    expect(operator.code).toBe(2);
    expect(operator.stderr).toContain('PAYRAIL_ADMIN_TOKEN');
    expect(down.code).toBe(6);
    expect(down.errJson.error).toMatchObject({ type: 'NetworkError', code: 'NETWORK_ERROR', exitCode: 6 });
    // The request that found nobody there: method and URL.
    expect(down.errJson.error.message).toMatch(
      /^GET http:\/\/127\.0\.0\.1:9\/admin\/v1\/ledger\/verify did not answer/,
    );
  });
});
