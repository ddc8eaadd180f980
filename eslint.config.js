// The linter `npm test` runs first (CONTRIBUTING.md, "Build and test"): rules that read
// the types to find what tsc lets through (a promise nobody awaits, a promise where a
// callback's return is ignored) and the house's import style. Each rule is here for a
// bug it finds or a convention it keeps; none is turned off for a file. No core rule set:
// this code matches control characters on purpose (no-control-regex), and tsc already
// reports what the others would (unused names, unreachable code).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A promise dropped on the floor: its rejection is an unhandled one, and the run goes on as if it had finished.
      '@typescript-eslint/no-floating-promises': 'error',
      // An async function where a callback's result is ignored (an event listener, forEach): its rejection is lost.
      '@typescript-eslint/no-misused-promises': 'error',
      // `await` on what is not a promise: a sign that the value is not what the code thinks.
      '@typescript-eslint/await-thenable': 'error',
      // Types come in with `import type` or an inline `type`: esbuild drops them, and a start never loads a module for a type.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
);
