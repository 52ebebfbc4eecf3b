import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', '**/data/**', 'coverage/**', '**/dist/**'] },
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
  // Layers (docs/authentication.md, "Layers"): each directory may import only from the layers below it.
  ...layer(
    'packages/server/src/domain/**',
    ['**/store/**', '**/http/**', '**/services/**', '**/jobs/**', '**/rails/**'],
    ['fastify', 'fastify/**', '@fastify/**', 'pg', 'ioredis'],
  ),
  ...layer('packages/server/src/store/**', ['**/http/**', '**/services/**', '**/jobs/**', '**/rails/**']),
  ...layer('packages/server/src/{services,jobs,rails,observability}/**', ['**/http/**'], ['fastify', '@fastify/**']),
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
                      message: 'This layer must not import from that one (see docs/authentication.md, "Layers").',
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
