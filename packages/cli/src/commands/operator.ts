import { join } from 'node:path';
import { PayrailError } from '@payrail/sdk';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Page } from '../adminClient.ts';
import { adminClient, adminRequest, output } from '../context.ts';
import { CliError, Exit, ExitWith, UsageError } from '../exitCodes.ts';
import { annotate, keyValues, table, type Cell } from '../output.ts';
import { ulid } from '../ulid.ts';
import { connectorCommands } from './connectors.ts';
import { operatorAccountCommands } from './operatorAccounts.ts';

type Row = Record<string, unknown>;
const s = (v: unknown): Cell => (v === null || v === undefined ? null : (v as Cell));

export function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('expected a whole number ≥ 1');
  return Number(value);
}

export function amountArg(value: string): string {
  if (!/^\d{1,15}(\.\d{1,2})?$/.test(value)) {
    throw new InvalidArgumentError('expected rupees like 1000 or 1000.50 (at most two decimals)');
  }
  return value;
}

/** `none` (or `null`) clears a setting. */
const orNone = (value: string): string | null => (['none', 'null'].includes(value.toLowerCase()) ? null : value);

function listFooter(page: Page<Row>): string {
  return page.has_more && page.next_cursor ? `\n(more: --cursor ${page.next_cursor}, or --all)` : '';
}

/** Server configuration overrides given as flags, applied to the environment the server reads. */
function applyServerFlags(opts: { port?: string; host?: string; dataDir?: string; databaseUrl?: string }) {
  if (opts.port !== undefined) process.env.PORT = opts.port;
  if (opts.host !== undefined) process.env.HOST = opts.host;
  if (opts.dataDir !== undefined) process.env.PAYRAIL_DATA_DIR = opts.dataDir;
  if (opts.databaseUrl !== undefined) process.env.DATABASE_URL = opts.databaseUrl;
}

// Server code is loaded only by the commands that run it, so that merchant commands start fast.
const loadServer = () => import('@payrail/server');

async function loadServerConfig(server: Awaited<ReturnType<typeof loadServer>>) {
  try {
    return server.loadConfig(process.env);
  } catch (err) {
    if (err instanceof server.ConfigError) throw new UsageError(`invalid configuration: ${err.message}`);
    throw err;
  }
}

function serverCommands(program: Command) {
  program
    .command('serve')
    .description('Start the Payrail server (configuration from the environment: PORT, DATABASE_URL, PAYRAIL_*)')
    .option('--port <port>', 'listen port (PORT, default 8080)')
    .option('--host <host>', 'listen address (HOST, default 127.0.0.1)')
    .option('--data-dir <dir>', 'embedded database and local secrets (PAYRAIL_DATA_DIR, default ./data)')
    .option('--database-url <url>', 'PostgreSQL instead of the embedded database (DATABASE_URL)')
    .action(async (opts, cmd: Command) => {
      const out = output(cmd);
      applyServerFlags(opts);
      const server = await loadServer();
      const config = await loadServerConfig(server);
      try {
        await server.runServer(
          config,
          ({ address, mode, engine, generatedAdminToken }) => {
            if (out.json) out.line({ event: 'listening', address, mode, engine }, () => '');
            if (generatedAdminToken && !out.json) {
              // On the terminal only, never through the logger.
              process.stderr.write(
                `Admin token (kept in ${join(config.dataDir, 'admin-token')}): ${generatedAdminToken}\n` +
                  'Set PAYRAIL_ADMIN_TOKEN to choose your own.\n',
              );
            }
          },
          // What the start is doing (the first one prepares the database for tens of seconds), then the address,
          // the console and the admin token's whereabouts; --json prints only the listening event.
          (line) => out.note(line),
        );
      } catch (err) {
        if (err instanceof server.DataDirLockedError) throw new CliError(err.message, Exit.unavailable);
        throw err;
      }
    });

  program
    .command('migrate')
    .description('Apply pending database migrations and exit (the server also migrates when it starts)')
    .option('--data-dir <dir>', 'embedded database directory (PAYRAIL_DATA_DIR, default ./data)')
    .option('--database-url <url>', 'PostgreSQL instead of the embedded database (DATABASE_URL)')
    .action(async (opts, cmd: Command) => {
      const out = output(cmd);
      applyServerFlags(opts);
      const server = await loadServer();
      const config = await loadServerConfig(server);
      let report;
      try {
        report = await server.migrateDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      } catch (err) {
        if (err instanceof server.DataDirLockedError) throw new CliError(err.message, Exit.unavailable);
        throw err;
      }
      const target = config.databaseUrl ? 'PostgreSQL' : config.dataDir;
      const { applied, total } = report;
      out.result({ applied, total, database: report.engine }, () =>
        applied.length === 0
          ? `Database ${target} is up to date (${total} migrations).`
          : `Applied ${applied.length} migration(s) to ${target}: ${applied.join(', ')}`,
      );
    });

  program
    .command('keys')
    .description('Secrets at rest (docs/operator/secrets-at-rest.md)')
    .command('rotate-master')
    .description(
      'Seal every stored secret under PAYRAIL_MASTER_KEY (the new key), opening those under ' +
        'PAYRAIL_MASTER_KEY_PREVIOUS (the old one); servers configured with both keys keep serving meanwhile',
    )
    .option('--data-dir <dir>', 'embedded database directory (PAYRAIL_DATA_DIR, default ./data; server stopped)')
    .option('--database-url <url>', 'PostgreSQL instead of the embedded database (DATABASE_URL)')
    .action(async (opts, cmd: Command) => {
      const out = output(cmd);
      applyServerFlags(opts);
      const server = await loadServer();
      const config = await loadServerConfig(server);
      if (!config.masterKey) throw new UsageError('PAYRAIL_MASTER_KEY (the new master key) is not set');
      let report;
      try {
        report = await server.rotateMasterKeyOf({
          databaseUrl: config.databaseUrl,
          dataDir: config.dataDir,
          masterKey: config.masterKey,
          previousMasterKey: config.masterKeyPrevious,
        });
      } catch (err) {
        if (err instanceof server.DataDirLockedError) throw new CliError(err.message, Exit.unavailable);
        if (err instanceof server.SecretUnreadable) throw new UsageError(err.message);
        throw err;
      }
      out.result(
        { key_id: report.keyId, merchants: report.merchants, settings: report.settings, key_ids: report.keyIds },
        () =>
          `Sealed ${report.merchants} merchant(s) and ${report.settings} setting(s) under master key ${report.keyId}; ` +
          `key ids in the database now: ${report.keyIds.join(', ') || 'none'}.\n` +
          (report.keyIds.every((id) => id === report.keyId)
            ? 'Remove PAYRAIL_MASTER_KEY_PREVIOUS from every server and restart them.'
            : 'Some values are still under another key (a server not restarted with the new key?): run it again.'),
      );
    });
}

function merchantView(m: Row): string {
  const wallets = (m.wallets as Row[] | undefined) ?? [];
  return [
    keyValues([
      ['Merchant ID', s(m.merchant_id)],
      ['Name', s(m.name)],
      ['Status', s(m.status)],
      ['Daily limit', s(m.daily_limit) ?? 'none'],
      ['Monthly limit', s(m.monthly_limit) ?? 'none'],
      ['Collection callback', s(m.collection_callback_url)],
      ['UPI VPA', s(m.upi_vpa)],
      ['UPI payee name', s(m.upi_payee_name)],
      [
        'Beneficiary verification',
        m.beneficiary_verification === 'required'
          ? `required (name match >= ${s(m.min_name_match_score)})`
          : (s(m.beneficiary_verification) ?? 'off'),
      ],
      ['Default scheme', s(m.default_scheme) ?? 'v2'],
      ['Created', s(m.created_at)],
    ]),
    '',
    table(wallets, [
      ['WALLET', (w) => s(w.wallet_id)],
      ['BALANCE', (w) => s(w.balance)],
      ['CURRENCY', (w) => s(w.currency)],
    ]),
  ].join('\n');
}

function merchantCommands(program: Command) {
  const merchant = program.command('merchant').description('Create and manage merchants (operator)');

  merchant
    .command('create')
    .description('Create a merchant with credentials and a first wallet; prints the secrets once')
    .argument('<name>', 'merchant name')
    .action(async (name: string, _opts, cmd: Command) => {
      const admin = await adminClient(cmd);
      const m = await admin.request('POST', '/admin/v1/merchants', { name }, 'merchant create');
      output(cmd).result(m, () =>
        [
          keyValues([
            ['Merchant ID', s(m.merchant_id)],
            ['Name', s(m.name)],
            ['Wallet ID', s(m.wallet_id)],
            ['API key', s(m.api_key)],
            ['Secret key', s(m.secret_key)],
            ['Webhook secret', s(m.webhook_secret)],
          ]),
          '',
          'Give the merchant these credentials over a secure channel; they are not shown again.',
        ].join('\n'),
      );
    });

  merchant
    .command('show')
    .description('Show a merchant with wallets, limits and settings (no secrets)')
    .argument('<merchantId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const m = await adminRequest(
        cmd,
        'GET',
        `/admin/v1/merchants/${encodeURIComponent(id)}`,
        undefined,
        'merchant show',
      );
      output(cmd).result(m, () => merchantView(m));
    });

  merchant
    .command('update')
    .description('Change limits, settings or status of a merchant')
    .argument('<merchantId>')
    .option('--daily-limit <amount|none>', 'daily payout allowance in rupees, or none')
    .option('--monthly-limit <amount|none>', 'monthly payout allowance in rupees, or none')
    .option('--collection-callback-url <url|none>', 'default webhook address of collections')
    .option('--upi-vpa <vpa|none>', 'UPI address that collections are paid to')
    .option('--upi-payee-name <name|none>', 'payee name shown to payers')
    .addOption(
      new Option('--status <status>', 'active or suspended (a suspended merchant cannot get tokens)').choices([
        'active',
        'suspended',
      ]),
    )
    .addOption(
      new Option(
        '--beneficiary-verification <mode>',
        'required: every payout verifies its beneficiary first (refused with 4013 below the minimum score)',
      ).choices(['off', 'required']),
    )
    .option('--min-name-match-score <0-100>', 'lowest name match score a required verification accepts')
    .addOption(
      new Option(
        '--default-scheme <scheme>',
        'scheme of a token asked for with plain credentials on the V1 path ({"api_key","secret_key"})',
      ).choices(['v1', 'v2']),
    )
    .action(async (id: string, opts: Record<string, string | undefined>, cmd: Command) => {
      const patch: Record<string, unknown> = {};
      const limit = (value: string) => {
        const v = orNone(value);
        if (v !== null) amountArg(v);
        return v;
      };
      try {
        if (opts.dailyLimit !== undefined) patch.daily_limit = limit(opts.dailyLimit);
        if (opts.monthlyLimit !== undefined) patch.monthly_limit = limit(opts.monthlyLimit);
      } catch (err) {
        throw new UsageError(`limit: ${(err as Error).message}`);
      }
      if (opts.collectionCallbackUrl !== undefined) patch.collection_callback_url = orNone(opts.collectionCallbackUrl);
      if (opts.upiVpa !== undefined) patch.upi_vpa = orNone(opts.upiVpa);
      if (opts.upiPayeeName !== undefined) patch.upi_payee_name = orNone(opts.upiPayeeName);
      if (opts.status !== undefined) patch.status = opts.status;
      if (opts.beneficiaryVerification !== undefined) patch.beneficiary_verification = opts.beneficiaryVerification;
      if (opts.minNameMatchScore !== undefined) {
        const score = opts.minNameMatchScore;
        if (!/^\d{1,3}$/.test(score) || Number(score) > 100) {
          throw new UsageError('--min-name-match-score: a whole number from 0 to 100');
        }
        patch.min_name_match_score = Number(score);
      }
      if (opts.defaultScheme !== undefined) patch.default_scheme = opts.defaultScheme;
      if (Object.keys(patch).length === 0) throw new UsageError('nothing to update: give at least one option');
      const m = await adminRequest(
        cmd,
        'PATCH',
        `/admin/v1/merchants/${encodeURIComponent(id)}`,
        patch,
        'merchant update',
      );
      output(cmd).result(m, () => merchantView(m));
    });

  merchant
    .command('rotate-credentials')
    .description('Issue a new API key and secret key; the old ones and their tokens stop working at once')
    .argument('<merchantId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const r = await adminRequest(
        cmd,
        'POST',
        `/admin/v1/merchants/${encodeURIComponent(id)}/credentials/rotate`,
        undefined,
        'merchant rotate-credentials',
      );
      output(cmd).result(r, () =>
        keyValues([
          ['Merchant ID', s(r.merchant_id)],
          ['API key', s(r.api_key)],
          ['Secret key', s(r.secret_key)],
        ]),
      );
    });

  merchant
    .command('list')
    .description('List merchants (no secrets), newest first')
    .option('-q, --search <text>', 'an exact merchant ID, or part of the name (any case)')
    .addOption(
      new Option('--status <status>', 'only active or only suspended merchants').choices(['active', 'suspended']),
    )
    .option('--limit <n>', 'page size (1-200, default 50)', positiveInt)
    .option('--cursor <cursor>', 'the next_cursor of the previous page')
    .option('--all', 'follow every page')
    .action(async (opts: { search?: string; status?: string; limit?: number; cursor?: string; all?: boolean }, cmd) => {
      const page = await (
        await adminClient(cmd)
      ).list(
        '/admin/v1/merchants',
        { q: opts.search, status: opts.status, limit: opts.limit, cursor: opts.cursor },
        Boolean(opts.all),
      );
      output(cmd).result(page, () =>
        page.data.length === 0
          ? 'No merchants.'
          : table(page.data, [
              ['MERCHANT', (m) => s(m.merchant_id)],
              ['NAME', (m) => s(m.name)],
              ['STATUS', (m) => s(m.status)],
              ['WALLETS', (m) => ((m.wallets as Row[] | undefined) ?? []).length],
              ['CREATED', (m) => s(m.created_at)],
            ]) + listFooter(page),
      );
    });
}

function walletCommands(program: Command) {
  const wallet = program.command('wallet').description('Open, credit and inspect wallets (operator)');

  wallet
    .command('create')
    .description('Open another wallet for a merchant')
    .argument('<merchantId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const w = await adminRequest(
        cmd,
        'POST',
        `/admin/v1/merchants/${encodeURIComponent(id)}/wallets`,
        undefined,
        'wallet create',
      );
      output(cmd).result(w, () => String(w.wallet_id));
    });

  wallet
    .command('credit')
    .description('Credit a wallet (top-up); a credit is applied once per reference')
    .argument('<walletId>')
    .argument('<amount>', 'rupees, e.g. 10000 or 10000.50', amountArg)
    .option(
      '--reference <ref>',
      'idempotency reference of the credit (e.g. the bank transfer id); default: a new cli-<ULID>, printed',
    )
    .addHelpText(
      'after',
      `
Without --reference the command makes one up (cli-<ULID>) and prints it before sending. If the answer is lost
(timeout, exit 6), run the same command with --reference <that reference>: the credit is applied at most once.`,
    )
    .action(async (id: string, amount: string, opts: { reference?: string }, cmd: Command) => {
      const out = output(cmd);
      // Without a reference, running the command again after a lost answer would credit twice: one is made up and
      // shown before the request, so that the operator can repeat the command with it.
      const generated = !opts.reference;
      const reference = opts.reference || `cli-${ulid()}`;
      const retry = `--reference ${reference}`;
      if (generated) {
        out.note(`Crediting with reference ${reference} (generated); to retry this credit safely, add ${retry}.`);
      }
      let r: Row;
      try {
        r = await adminRequest(
          cmd,
          'POST',
          `/admin/v1/wallets/${encodeURIComponent(id)}/credits`,
          { amount, reference },
          'wallet credit',
        );
      } catch (err) {
        if (generated && err instanceof PayrailError && err.retryable) {
          throw annotate(err, `The credit may have been applied: run the same command with ${retry} (never twice).`, {
            reference,
          });
        }
        throw err;
      }
      out.result({ ...r, reference, reference_generated: generated }, () =>
        keyValues([
          ['Wallet ID', s(r.wallet_id)],
          ['Balance', s(r.balance)],
          ['Reference', generated ? `${reference} (generated; repeat with ${retry})` : reference],
          ...(r.duplicate ? ([['Note', 'reference already applied; nothing credited']] as [string, Cell][]) : []),
        ]),
      );
    });

  wallet
    .command('show')
    .description('Show a wallet with its balance and the amount on hold')
    .argument('<walletId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const w = await adminRequest(cmd, 'GET', `/admin/v1/wallets/${encodeURIComponent(id)}`, undefined, 'wallet show');
      output(cmd).result(w, () =>
        keyValues([
          ['Wallet ID', s(w.wallet_id)],
          ['Merchant ID', s(w.merchant_id)],
          ['Balance', s(w.balance)],
          ['On hold', s(w.on_hold)],
          ['Currency', s(w.currency)],
          ['Updated', s(w.updated_at)],
        ]),
      );
    });
}

const payoutRow: [string, (r: Row) => Cell][] = [
  ['TRANSACTION ID', (r) => s(r.transaction_id)],
  ['SENDER ID', (r) => s(r.sender_id)],
  ['MERCHANT', (r) => s(r.merchant_id)],
  ['AMOUNT', (r) => s(r.amount)],
  ['MODE', (r) => s(r.payment_mode)],
  ['STATUS', (r) => s(r.status)],
  ['UTR', (r) => s(r.utr_number)],
  ['CREATED', (r) => s((r.timestamps as Row | undefined)?.created_at)],
];

function payoutAdminView(p: Row): string {
  const b = (p.beneficiary as Row | undefined) ?? {};
  return keyValues([
    ['Transaction ID', s(p.transaction_id)],
    ['Sender ID', s(p.sender_id)],
    ['Merchant ID', s(p.merchant_id)],
    ['Wallet ID', s(p.wallet_id)],
    ['Amount', s(p.amount)],
    ['Mode', s(p.payment_mode)],
    ['Status', s(p.status)],
    ['Status message', s(p.status_message)],
    ['UTR', s(p.utr_number)],
    // Only for a payout the bank returned after its SUCCESS.
    ...(p.returned_at ? [['Returned', `${String(p.returned_at)}: ${String(p.return_reason)}`] as [string, Cell]] : []),
    [
      'Beneficiary',
      `${String(b.beneficiary_name ?? '')} ${String(b.beneficiary_acc_number ?? '')} ${String(b.beneficiary_ifsc ?? '')}`,
    ],
    ['Created', s((p.timestamps as Row | undefined)?.created_at)],
    ['Updated', s((p.timestamps as Row | undefined)?.updated_at)],
  ]);
}

interface ListOpts {
  merchant?: string;
  status?: string;
  limit?: number;
  cursor?: string;
  all?: boolean;
}

function listOptions(cmd: Command): Command {
  return cmd
    .option('--merchant <merchantId>', 'only this merchant')
    .option('--limit <n>', 'page size (1-200, default 50)', positiveInt)
    .option('--cursor <cursor>', 'the next_cursor of the previous page')
    .option('--all', 'follow every page');
}

function transactionCommands(program: Command) {
  const payouts = program.command('payouts').description('Operator view of payouts');

  listOptions(
    payouts
      .command('list')
      .description('List payouts, newest first')
      .option('--status <status>', 'INITIATED, PROCESSING, PENDING, SUCCESS, FAILED or REFUNDED'),
  ).action(async (opts: ListOpts, cmd: Command) => {
    const page = await (
      await adminClient(cmd)
    ).list(
      '/admin/v1/payouts',
      { merchant_id: opts.merchant, status: opts.status?.toUpperCase(), limit: opts.limit, cursor: opts.cursor },
      Boolean(opts.all),
    );
    output(cmd).result(page, () => table(page.data, payoutRow) + listFooter(page));
  });

  payouts
    .command('show')
    .description('Show one payout')
    .argument('<transactionId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const p = await adminRequest(
        cmd,
        'GET',
        `/admin/v1/payouts/${encodeURIComponent(id)}`,
        undefined,
        'payouts show',
      );
      output(cmd).result(p, () => payoutAdminView(p));
    });

  payouts
    .command('resolve')
    .description('Resolve a PENDING payout as SUCCESS or FAILED (FAILED goes on to REFUNDED)')
    .argument('<transactionId>')
    .argument('<status>', 'SUCCESS or FAILED', (v: string) => {
      const up = v.toUpperCase();
      if (up !== 'SUCCESS' && up !== 'FAILED') throw new InvalidArgumentError('expected SUCCESS or FAILED');
      return up;
    })
    .option('--utr <utr>', 'bank reference of a successful transfer')
    .action(async (id: string, status: string, opts: { utr?: string }, cmd: Command) => {
      const p = await adminRequest(
        cmd,
        'POST',
        `/admin/v1/payouts/${encodeURIComponent(id)}/resolve`,
        { status, ...(opts.utr ? { utr_number: opts.utr } : {}) },
        'payouts resolve',
      );
      output(cmd).result(p, () => payoutAdminView(p));
    });

  payouts
    .command('return')
    .description('Record that the bank returned the money of a SUCCESS payout (it becomes REFUNDED, money back once)')
    .argument('<transactionId>')
    .requiredOption('--reason <text>', 'why the bank returned it, as the merchant will read it (1-255 characters)')
    .action(async (id: string, opts: { reason: string }, cmd: Command) => {
      const p = await adminRequest(
        cmd,
        'POST',
        `/admin/v1/payouts/${encodeURIComponent(id)}/return`,
        { reason: opts.reason },
        'payouts return',
      );
      output(cmd).result(p, () => payoutAdminView(p));
    });

  const collections = program.command('collections').description('Operator view of collections');
  listOptions(
    collections
      .command('list')
      .description('List collections, newest first')
      .option('--status <status>', 'INITIATED, PENDING, SUCCESS or FAILED')
      .option('--sender-id <senderId>', 'only this senderId'),
  ).action(async (opts: ListOpts & { senderId?: string }, cmd: Command) => {
    const page = await (
      await adminClient(cmd)
    ).list(
      '/admin/v1/collections',
      {
        merchant_id: opts.merchant,
        status: opts.status?.toUpperCase(),
        sender_id: opts.senderId,
        limit: opts.limit,
        cursor: opts.cursor,
      },
      Boolean(opts.all),
    );
    output(cmd).result(
      page,
      () =>
        table(page.data, [
          ['TXN ID', (r) => s(r.txnId)],
          ['SENDER ID', (r) => s(r.senderId)],
          ['MERCHANT', (r) => s(r.merchant_id)],
          ['AMOUNT', (r) => s(r.requestAmount)],
          ['MODE', (r) => s(r.paymentMode)],
          ['STATUS', (r) => s(r.status)],
          ['UTR', (r) => s(r.utr)],
          ['CREATED', (r) => s(r.createdAt)],
        ]) + listFooter(page),
    );
  });
}

function webhookAdminCommands(program: Command) {
  const webhooks = program.command('webhooks').description('Operator view of webhook deliveries');

  listOptions(
    webhooks
      .command('deliveries')
      .description('List webhook deliveries (newest first) with their attempts')
      .option('--state <state>', 'pending, delivered or failed')
      .option('--subject <id>', 'only deliveries of this transaction_id or txnId'),
  ).action(async (opts: ListOpts & { state?: string; subject?: string }, cmd: Command) => {
    const page = await (
      await adminClient(cmd)
    ).list(
      '/admin/v1/webhooks/deliveries',
      {
        merchant_id: opts.merchant,
        state: opts.state,
        subject_id: opts.subject,
        limit: opts.limit,
        cursor: opts.cursor,
      },
      Boolean(opts.all),
    );
    output(cmd).result(
      page,
      () =>
        table(page.data, [
          ['DELIVERY ID', (r) => s(r.id)],
          ['TYPE', (r) => s(r.type)],
          ['SUBJECT', (r) => s(r.subject_id)],
          ['STATE', (r) => s(r.state)],
          ['ATTEMPTS', (r) => s(r.attempt_count)],
          ['LAST', (r) => s(r.last_status ?? r.last_error)],
          ['NEXT ATTEMPT', (r) => s(r.next_attempt_at)],
          ['URL', (r) => s(r.url)],
        ]) + listFooter(page),
    );
  });

  webhooks
    .command('replay')
    .description('Send a delivery again now (same webhook-id, so receivers deduplicate)')
    .argument('<deliveryId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const r = await adminRequest(
        cmd,
        'POST',
        `/admin/v1/webhooks/deliveries/${encodeURIComponent(id)}/replay`,
        undefined,
        'webhooks replay',
      );
      output(cmd).result(r, () => `Delivery ${String(r.id ?? id)} queued for sending.`);
    });

  const ledger = program.command('ledger').description('Ledger checks (operator)');
  ledger
    .command('verify')
    .description("Check every wallet's balance against the sum of its ledger entries (exit 7 on a mismatch)")
    .action(async (_opts, cmd: Command) => {
      const r = await adminRequest(cmd, 'GET', '/admin/v1/ledger/verify', undefined, 'ledger verify');
      const mismatches = (r.mismatches as Row[] | undefined) ?? [];
      output(cmd).result(r, () =>
        r.ok
          ? `Ledger OK: ${String(r.wallets_checked)} wallet(s) checked, balances equal their entries.`
          : `Ledger MISMATCH in ${mismatches.length} wallet(s) of ${String(r.wallets_checked)}:\n` +
            table(
              mismatches,
              Object.keys(mismatches[0] ?? {}).map((k) => [k.toUpperCase(), (m: Row) => s(m[k])]),
            ),
      );
      if (!r.ok) throw new ExitWith(Exit.checkFailed);
    });
}

export function operatorCommands(program: Command): void {
  serverCommands(program);
  merchantCommands(program);
  walletCommands(program);
  transactionCommands(program);
  webhookAdminCommands(program);
  operatorAccountCommands(program);
  connectorCommands(program);
}
