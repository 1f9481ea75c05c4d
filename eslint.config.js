import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  // modules/java, python and go are checked by their own language's tools; modules/node is ours.
  {
    ignores: [
      'coverage/',
      '.tap/',
      'modules/java/',
      'modules/python/',
      'modules/go/',
      '**/dist/',
      'modules/node/src/admin-types.ts',
      'src/contract/api-types.ts',
      'src/contract/admin-types.ts',
      'bench/results/',
    ],
  },
  js.configs.recommended,
  // Plain JavaScript runs on Node: its globals (the TypeScript files get them from @types/node).
  {
    files: ['**/*.mjs'],
    languageOptions: {
      globals: { fetch: 'readonly', process: 'readonly', setTimeout: 'readonly', URL: 'readonly', console: 'readonly' },
    },
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      // The spec arrives as untyped YAML; spec.ts narrows it in one place.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
)
