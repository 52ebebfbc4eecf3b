import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The only product files that read the system time: each package's clock.
const SERVER_CLOCK = 'packages/server/src/clock.ts';
const CLOCK_FILES = [SERVER_CLOCK, 'packages/sdk/src/clock.ts', 'packages/cli/src/clock.ts'];
/** The server's storage layer: the only files with SQL. */
const SERVER_STORE = 'packages/server/src/store/**';
/** The server's composition root: builds the one clock (the system's, unless a test passes its own). */
const COMPOSITION_ROOT = 'packages/server/src/server.ts';
/** The IST rules (the server reads them through domain/istPeriod.ts, the CLI and the benchmark from the protocol). */
const IST_FILE = 'packages/protocol/src/istTime.ts';

/** Text that opens a SQL statement (not a route key such as 'DELETE /console/api/session'). */
const SQL_TEXT =
  '/^\\s*(SELECT\\s|INSERT\\s+INTO\\s|UPDATE\\s+\\S+\\s+(AS\\s+\\S+\\s+)?SET\\s|DELETE\\s+FROM\\s|SET\\s+(TRANSACTION|LOCAL|SESSION)\\s|WITH\\s+\\S+\\s+AS\\s)/';

/** Reading the system time directly: `Date.now()` (or passing `Date.now` along), `new Date()`, `Date()`. */
const TIME_READS = [
  {
    selector: "MemberExpression[object.name='Date'][property.name='now']",
    message: 'Read the time from the injected clock (packages/server/src/clock.ts; the SDK and CLI: their clock.ts).',
  },
  {
    selector: "NewExpression[callee.name='Date'][arguments.length=0]",
    message: 'new Date() reads the system time: use new Date(clock()) with the injected clock.',
  },
  {
    selector: "CallExpression[callee.name='Date']",
    message: 'Date() reads the system time: use the injected clock.',
  },
];

/**
 * SQL outside packages/server/src/store: a `.query(` or `.exec(` call given a string, or a string that opens a SQL
 * statement (held in a variable before it is run). Every statement is a repository method named for its purpose.
 */
const SQL_OUTSIDE_STORE = [
  {
    selector: 'CallExpression[callee.property.name=/^(query|exec)$/][arguments.0.type=/^(Literal|TemplateLiteral)$/]',
    message:
      'SQL lives in packages/server/src/store: call a repository method named for the purpose (ARCHITECTURE.md).',
  },
  ...[
    ['Literal', 'value'],
    ['TemplateLiteral > TemplateElement:first-child', 'value.raw'],
  ].map(([node, text]) => ({
    selector: `${node}[${text}=${SQL_TEXT}]`,
    message:
      'SQL text lives in packages/server/src/store: a repository method named for the purpose (ARCHITECTURE.md).',
  })),
];

/**
 * The system's clock outside the composition root: a class or function that defaults to it when no clock is passed
 * reads the wall where a test moved its clock. Every one takes the clock it is handed, with no default.
 */
const CLOCK_DEFAULTS = [
  {
    selector: "Identifier[name='systemClock']",
    message:
      'Only server.ts (the composition root) chooses systemClock: take the clock as a parameter, with no default.',
  },
];

/**
 * The IST offset written out (`'+05:30'`, `'Asia/Kolkata'`, 19800000 ms, 19800 s) anywhere but IST_FILE: a day, a
 * month, a day's start or a wall time with its offset comes from istDay, istMonth, istDayStart, istDateTime….
 */
const IST_OFFSETS = [
  ...[
    ['Literal', 'value'],
    ['TemplateElement', 'value.raw'],
  ].map(([node, text]) => ({
    selector: `${node}[${text}=/\\+05:?30|Asia.(Kolkata|Calcutta)/]`,
    message: `IST is computed in one place: ${IST_FILE} (the server: domain/istPeriod.ts). Use istDay, istDateTime….`,
  })),
  ...[19_800_000, 19_800].map((n) => ({
    selector: `Literal[value=${n}]`,
    message: `The IST offset lives in ${IST_FILE} (the server: domain/istPeriod.ts). Use istDay, istDateTime….`,
  })),
];

/** The contract document is not in the repository: no string names it (comments are checked by a test). */
const CONTRACT_NAMES = ['Literal', 'TemplateElement'].map((node) => ({
  selector: `${node}[${node === 'Literal' ? 'value' : 'value.raw'}=/CONTRACT\\.md/i]`,
  message: 'Name no document outside the repository (test/ci/standaloneDocs.test.ts).',
}));

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'data/**',
      '**/data/**',
      'coverage/**',
      '**/dist/**',
      '**/dist-build-*/**',
      '**/dist-old-*/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Plain JavaScript files (examples, the CLI's bin) run on Node.
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' },
    },
  },
  {
    // The console runs in the browser, as ES modules served by the server.
    files: ['packages/server/console/**/*.js'],
    languageOptions: {
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        fetch: 'readonly',
        FormData: 'readonly',
        URLSearchParams: 'readonly',
        Intl: 'readonly',
        Event: 'readonly',
      },
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // One clock: product code reads the time only through the clock it is handed (packages/server/src/clock.ts,
  // built in server.ts); the clock files are the only direct reads of the system time. Nothing names the
  // contract document the project was specified against (comments: test/ci/standaloneDocs.test.ts). IST is
  // computed in IST_FILE only.
  {
    files: ['packages/*/src/**/*.{ts,js,mjs}'],
    ignores: [...CLOCK_FILES, IST_FILE],
    rules: { 'no-restricted-syntax': ['error', ...TIME_READS, ...CONTRACT_NAMES, ...IST_OFFSETS] },
  },
  { files: [IST_FILE], rules: { 'no-restricted-syntax': ['error', ...TIME_READS, ...CONTRACT_NAMES] } },
  // The server (ARCHITECTURE.md): all SQL is in the store, whose repositories the other directories call; the
  // system's clock is chosen in the composition root only, and handed to everything else.
  {
    files: ['packages/server/src/**/*.{ts,js,mjs}'],
    ignores: [...CLOCK_FILES, SERVER_STORE, COMPOSITION_ROOT],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...TIME_READS,
        ...CONTRACT_NAMES,
        ...SQL_OUTSIDE_STORE,
        ...CLOCK_DEFAULTS,
        ...IST_OFFSETS,
      ],
    },
  },
  {
    files: [SERVER_STORE],
    rules: { 'no-restricted-syntax': ['error', ...TIME_READS, ...CONTRACT_NAMES, ...CLOCK_DEFAULTS, ...IST_OFFSETS] },
  },
  {
    files: [COMPOSITION_ROOT],
    rules: {
      'no-restricted-syntax': ['error', ...TIME_READS, ...CONTRACT_NAMES, ...SQL_OUTSIDE_STORE, ...IST_OFFSETS],
    },
  },
  {
    files: ['**/*.{ts,js,mjs}'],
    ignores: ['packages/*/src/**'],
    rules: { 'no-restricted-syntax': ['error', ...CONTRACT_NAMES] },
  },
  // The benchmark and the scripts take IST from the protocol too (tests may write the offset: they check it).
  {
    files: ['bench/**/*.{ts,js,mjs}', 'scripts/**/*.{ts,js,mjs}'],
    rules: { 'no-restricted-syntax': ['error', ...CONTRACT_NAMES, ...IST_OFFSETS] },
  },
  { files: CLOCK_FILES, rules: { 'no-restricted-syntax': ['error', ...CONTRACT_NAMES, ...IST_OFFSETS] } },
  {
    files: [SERVER_CLOCK],
    rules: { 'no-restricted-syntax': ['error', ...CONTRACT_NAMES, ...SQL_OUTSIDE_STORE, ...IST_OFFSETS] },
  },
  // Layers (ARCHITECTURE.md, "Layers"): each directory may import only from the layers below it.
  ...layer(
    'packages/server/src/domain/**',
    ['**/store/**', '**/http/**', '**/services/**', '**/jobs/**', '**/rails/**'],
    ['fastify', 'fastify/**', '@fastify/**', 'pg', 'ioredis'],
  ),
  ...layer('packages/server/src/store/**', ['**/http/**', '**/services/**', '**/jobs/**', '**/rails/**']),
  ...layer('packages/server/src/{services,jobs,observability}/**', ['**/http/**'], ['fastify', '@fastify/**']),
  // Connectors are asked and answer: what becomes of an answer (recording it, applying it, the next job) is the use
  // cases' (services/, jobs/), which call rails/, never the other way round; a connector keeps no storage of its own.
  ...layer('packages/server/src/rails/**', ['**/http/**', '**/services/**', '**/store/**'], ['fastify', '@fastify/**']),
  // Routes parse, call one service method and answer: http/ never reaches the store (repositories, Database).
  ...layer('packages/server/src/http/**', ['**/store/**']),
  ...layer(
    'packages/protocol/src/**',
    ['**/server/**', '**/sdk/**', '**/cli/**'],
    ['@payrail/server', '@payrail/sdk', '@payrail/cli'],
  ),
  ...layer(
    'packages/{sdk,cli}/src/**',
    ['**/server/**', '**/packages/server/**'],
    ['@payrail/server', '@payrail/server/**'],
  ),
);

/** A no-restricted-imports rule for the files of one layer: paths it must not reach, packages it must not use. */
function layer(files, paths, packages = []) {
  return [
    {
      files: [files],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              ...(paths.length
                ? [
                    {
                      group: paths,
                      message: 'This layer must not import from that one (see ARCHITECTURE.md, "Layers").',
                    },
                  ]
                : []),
              ...(packages.length ? [{ group: packages, message: 'This layer must not use that package.' }] : []),
            ],
          },
        ],
      },
    },
  ];
}
