import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

const importsOf = (targets, message) =>
  targets.map((target) => ({
    group: [`**/${target}/**`, `../${target}/*`, `../../${target}/*`, `../../../${target}/*`],
    message,
  }));

// The headless CLI is part of the composition root: only src/start.ts and src/cli.ts import it.
const [noCli] = importsOf(
  ['cli'],
  'Only src/start.ts and src/cli.ts import cli/ (the headless CLI).',
);

const layer = (from, forbidden, message, more = []) => ({
  files: [`src/${from}/**/*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': ['error', { patterns: [...importsOf(forbidden, message), ...more] }],
  },
});

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'test/fixtures/**',
      // Grove's fork of ink: its published build, edited (packages/ink/README.md).
      'packages/**',
      'src/infra/agent/codex/protocol/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'react-hooks': reactHooks, 'import-x': importX },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'no-console': 'error',
    },
  },
  layer('domain', ['infra', 'app', 'runtime', 'ui'], 'domain/ imports nothing outside domain/.', [
    noCli,
  ]),
  layer('infra', ['app', 'runtime', 'ui'], 'infra/ may import only domain/.', [noCli]),
  layer('app', ['runtime', 'ui'], 'app/ must not import runtime/ or ui/.', [noCli]),
  layer('ui', ['infra', 'runtime'], 'ui/ never imports infra/ or runtime/.', [noCli]),
  layer('runtime', ['infra'], 'runtime/ works through app/, not infra/.', [noCli]),
  layer('runtime/modes', ['infra'], 'runtime/ works through app/, not infra/.', [
    noCli,
    ...importsOf(
      ['ui/pages', 'ui/components'],
      'Key handlers take geometry from plain ui/*-layout.ts modules, not from JSX views.',
    ),
  ]),
  layer('cli', ['runtime', 'ui'], 'cli/ is the headless CLI: no runtime/ or ui/.'),
  // infra/agent/: a provider's folder imports no other provider's (Gemini CLI speaks ACP, so
  // gemini/ may use acp/); confine/ serves every agent and imports none of them. import-x
  // finds `./x.ts` behind `./x.js` only with these settings (no-cycle then follows these
  // files' imports too; it skips type-only ones: test/unit/agent-imports.test.ts has those).
  {
    files: ['src/infra/agent/**/*.ts'],
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [
        createNodeResolver({ extensionAlias: { '.js': ['.ts', '.tsx', '.js'] } }),
      ],
    },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            ['confine', ['claude', 'codex', 'gemini', 'acp']],
            ['claude', ['codex', 'gemini', 'acp']],
            ['codex', ['claude', 'gemini', 'acp']],
            ['gemini', ['claude', 'codex']],
            ['acp', ['claude', 'codex', 'gemini']],
          ].map(([room, others]) => ({
            target: `./src/infra/agent/${room}`,
            from: others.map((other) => `./src/infra/agent/${other}`),
            message: 'Shared agent code lives in infra/agent/, not in another provider folder.',
          })),
        },
      ],
    },
  },
  {
    files: ['test/**', 'xtask/**', 'src/cli.ts', 'src/main.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
      },
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
