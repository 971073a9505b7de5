// Lint rules: ESLint's and typescript-eslint's recommended sets, the few the codebase holds itself to, and the layering.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Imports run one way: programs → handlers → edge → domain → platform. Each floor names what it may not reach. */
const noImport = (...floors) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: floors.map((floor) => ({
        regex: `^(#${floor}/|(\\.\\./)+(.*/)?${floor}/)`,
        message: `this floor may not import from ${floor}/`,
      })),
    },
  ],
});

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.local/', 'coverage/', 'client/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      eqeqeq: 'error',
    },
  },
  { files: ['shared/**/*.ts'], ignores: ['shared/**/*.test.ts'], rules: noImport('lib', 'test', 'functions') },
  {
    files: ['shared/**/*.ts'],
    ignores: ['shared/edge/**', 'shared/**/*.test.ts'],
    rules: noImport('edge', 'lib', 'test', 'functions'),
  },
  {
    files: ['shared/platform/**/*.ts'],
    ignores: ['shared/**/*.test.ts'],
    rules: noImport('shared', 'edge', 'lib', 'test', 'functions'),
  },
  { files: ['functions/**/*.ts'], rules: noImport('lib', 'test') },
  // Sizes: a file that outgrows these is split along a seam. Tests and data tables (the access-pattern catalogue) are exempt.
  {
    files: ['shared/**/*.ts', 'functions/**/*.ts'],
    ignores: ['**/*.test.ts', 'shared/platform/table/access-patterns.ts'],
    rules: {
      'max-lines': ['error', { max: 350 }],
      'max-lines-per-function': ['error', { max: 60, IIFEs: true }],
    },
  },
);
