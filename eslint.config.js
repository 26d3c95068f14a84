// ESLint flat config: typescript-eslint's type-aware recommended rules over src, test and bench.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

// The emulator fence (docs/architecture.md, "The emulator fence"). The emulator is a fake router shipped beside
// the exporter: the exporter must not load it (or its optional dependencies zod and selfsigned) except through
// `demo`'s dynamic import, and the emulator must not share the exporter's code, or it would agree with its bugs.
const EMULATOR_FROM_EXPORTER = '^(\\.{1,2}/)+emulator(/|$)';
const EMULATOR_DEPENDENCIES = '^(zod|selfsigned)(/|$)';
const FENCE = 'the emulator fence (docs/architecture.md)';
const exporterImports = {
  patterns: [
    { regex: EMULATOR_FROM_EXPORTER, message: `the exporter may not import src/emulator: ${FENCE}` },
    { regex: EMULATOR_DEPENDENCIES, message: `zod and selfsigned are the emulator's optional dependencies: ${FENCE}` },
  ],
};
const dynamicImport = (pattern, message) => ({
  selector: `ImportExpression[source.value=/${pattern}/]`,
  message,
});
const DYNAMIC_EMULATOR = dynamicImport('emulator', `only src/cli/demo.ts may load the emulator: ${FENCE}`);
const DYNAMIC_DEPENDENCIES = dynamicImport('^(zod|selfsigned)', `zod and selfsigned belong to the emulator: ${FENCE}`);
// A computed specifier would slip past both patterns; the exporter has no use for one.
const DYNAMIC_COMPUTED = {
  selector: "ImportExpression[source.type!='Literal']",
  message: `a dynamic import names its module literally, so the fence can read it: ${FENCE}`,
};
// src/emulator/<d dirs>/file.ts leaves src/emulator by going up d + 1 levels.
const emulatorSelfContained = [0, 1, 2, 3].map((depth) => ({
  files: [`src/emulator/${'*/'.repeat(depth)}*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^(\\.\\./){${depth + 1}}`,
            message: `the emulator owns its code and imports nothing from the exporter: ${FENCE}`,
          },
        ],
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.tmp*/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error'] }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    files: ['test/**', 'bench/**', 'scripts/**', 'src/main.ts', 'src/cli/**', 'src/emulator/cli.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/emulator/**'],
    rules: {
      'no-restricted-imports': ['error', exporterImports],
      'no-restricted-syntax': ['error', DYNAMIC_EMULATOR, DYNAMIC_DEPENDENCIES, DYNAMIC_COMPUTED],
    },
  },
  // The one door: demo loads the emulator, dynamically, so the daemon's static module graph never holds it.
  { files: ['src/cli/demo.ts'], rules: { 'no-restricted-syntax': ['error', DYNAMIC_DEPENDENCIES, DYNAMIC_COMPUTED] } },
  ...emulatorSelfContained,
);
