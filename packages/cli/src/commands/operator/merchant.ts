import { Option, type Command } from 'commander';
import type { Row } from '../../adminClient.ts';
import { amountArg } from '../../argParsers.ts';
import { adminClient, adminRequest, output } from '../../context.ts';
import { UsageError } from '../../exitCodes.ts';
import { listCommand } from '../../listCommand.ts';
import { cell, keyValues, table } from '../../output.ts';
import { adminGet, showCommand } from '../../showCommand.ts';

/** `none` (or `null`) clears a setting. */
const orNone = (value: string): string | null => (['none', 'null'].includes(value.toLowerCase()) ? null : value);

function merchantView(m: Row): string {
  const wallets = (m.wallets as Row[] | undefined) ?? [];
  return [
    keyValues([
      ['Merchant ID', cell(m.merchant_id)],
      ['Name', cell(m.name)],
      ['Status', cell(m.status)],
      ['Daily limit', cell(m.daily_limit) ?? 'none'],
      ['Monthly limit', cell(m.monthly_limit) ?? 'none'],
      ['Collection callback', cell(m.collection_callback_url)],
      ['UPI VPA', cell(m.upi_vpa)],
      ['UPI payee name', cell(m.upi_payee_name)],
      [
        'Beneficiary verification',
        m.beneficiary_verification === 'required'
          ? `required (name match >= ${cell(m.min_name_match_score)})`
          : (cell(m.beneficiary_verification) ?? 'off'),
      ],
      ['Default scheme', cell(m.default_scheme) ?? 'v2'],
      ['Legal name (invoices)', cell(m.legal_name)],
      ['GSTIN', cell(m.gstin)],
      ['Billing state', cell(m.billing_state)],
      ['Created', cell(m.created_at)],
    ]),
    '',
    table(wallets, [
      ['WALLET', (w) => cell(w.wallet_id)],
      ['BALANCE', (w) => cell(w.balance)],
      ['CURRENCY', (w) => cell(w.currency)],
    ]),
  ].join('\n');
}

/** `payrail merchant …`: the operator's side of merchants (admin API). */
export function merchantCommands(program: Command): void {
  const merchant = program.command('merchant').description('Create and manage merchants (operator)');

  merchant
    .command('create')
    .description('Create a merchant with credentials and a first wallet; prints the secrets once')
    .argument('<name>', 'merchant name')
    .action(async (name: string, _opts, cmd: Command) => {
      const admin = await adminClient(cmd);
      const m = await admin.request('POST', '/admin/v1/merchants', { name }, 'merchant create');
      const out = output(cmd);
      // Created either way; a warning (another merchant of this name) goes to stderr, also with --json (where stdout is
      // often a file: `--json > acme.json`), and stays in the result.
      for (const w of (m.warnings as { message?: string }[] | undefined) ?? []) out.warn(w, String(w.message));
      out.result(m, () =>
        [
          keyValues([
            ['Merchant ID', cell(m.merchant_id)],
            ['Name', cell(m.name)],
            ['Wallet ID', cell(m.wallet_id)],
            ['API key', cell(m.api_key)],
            ['Secret key', cell(m.secret_key)],
            ['Webhook secret', cell(m.webhook_secret)],
          ]),
          '',
          'Give the merchant these credentials over a secure channel; they are not shown again.',
        ].join('\n'),
      );
    });

  showCommand(merchant, {
    description: 'Show a merchant with wallets, limits and settings (no secrets)',
    argument: '<merchantId>',
    fetch: adminGet((id) => `/admin/v1/merchants/${id}`),
    view: merchantView,
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
    .option('--legal-name <name|none>', 'registered name on tax invoices (none: the merchant name)')
    .option('--gstin <gstin|none>', 'GSTIN on tax invoices (15 characters; its check character is verified)')
    .option('--billing-state <code|none>', "two-digit GST state code of billing (none: the operator's state)")
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
      if (opts.legalName !== undefined) patch.legal_name = orNone(opts.legalName);
      if (opts.gstin !== undefined) patch.gstin = orNone(opts.gstin);
      if (opts.billingState !== undefined) patch.billing_state = orNone(opts.billingState);
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
          ['Merchant ID', cell(r.merchant_id)],
          ['API key', cell(r.api_key)],
          ['Secret key', cell(r.secret_key)],
        ]),
      );
    });

  listCommand(merchant, {
    description: 'List merchants (no secrets), newest first',
    filters: (cmd) =>
      cmd
        .option('-q, --search <text>', 'an exact merchant ID, or part of the name (any case)')
        .addOption(
          new Option('--status <status>', 'only active or only suspended merchants').choices(['active', 'suspended']),
        ),
    path: '/admin/v1/merchants',
    query: (opts: { search?: string; status?: string }) => ({ q: opts.search, status: opts.status }),
    columns: [
      ['MERCHANT', (m) => cell(m.merchant_id)],
      ['NAME', (m) => cell(m.name)],
      ['STATUS', (m) => cell(m.status)],
      ['WALLETS', (m) => ((m.wallets as Row[] | undefined) ?? []).length],
      ['CREATED', (m) => cell(m.created_at)],
    ],
    empty: 'No merchants.',
  });
}
