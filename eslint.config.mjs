// `npm run lint` runs Prettier's check and this: typescript-eslint's type-checked recommended
// rules over src/ and test/, ESLint's recommended rules over the plain JavaScript of scripts/,
// bench/ and bin/. Each rule relaxed says why beside it.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** `_`-prefixed names are deliberate: a parameter kept for its position, a key taken out of a rest. */
const unusedVars = {
  args: 'after-used',
  argsIgnorePattern: '^_',
  varsIgnorePattern: '^_',
  caughtErrorsIgnorePattern: '^_',
  destructuredArrayIgnorePattern: '^_',
  ignoreRestSiblings: true,
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dist.*/**',
      'coverage/**',
      'node_modules/**',
      'test/fixtures/**',
      // Generated from libphonenumber's metadata (npm run phone-metadata): data, not code.
      'src/core/envelope/phone-metadata.ts',
    ],
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
    rules: { 'no-unused-vars': ['error', unusedVars] },
  },
  {
    // The sandbox pages' one script runs in the browser, as a classic script.
    files: ['assets/pages/*.js'],
    languageOptions: { globals: { ...globals.browser }, sourceType: 'script' },
  },
  {
    // The webhook inspector's page script runs in the browser, as a classic script (no modules).
    files: ['assets/inspector/inspector.js'],
    languageOptions: { globals: { ...globals.browser }, sourceType: 'script' },
  },
  {
    // Run as a worker thread from its text (eval): CommonJS.
    files: ['assets/inspector/sqlite-writer.js'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['vitest.reliability.config.ts', 'vitest.browser.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', unusedVars],
      // A command, a fake or an iterable implements an async interface; some have nothing to
      // wait for, and making them sync would only move the Promise.resolve into their callers.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Escaping what came from input, a server or a delivery means matching control characters.
    files: ['**/*.{ts,mjs}'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    // Tests read what a command printed with JSON.parse and look into it: `any` there is the
    // point, and a typed copy of every answer would only restate the assertions. They also hand
    // methods to expect() and spies unbound.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
