// `npm run lint` (eslint half): the recommended rules plus those outside reviews asked for:
// no-shadow (startLab's shadowed `fronts` and `config`) and no-unused-vars over every folder, and
// no product function over 100 lines, every line counted (issue 42: split them by what they do).
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['dist/', 'node_modules/', 'results/', 'docs/results/', 'certs/'] },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-shadow': 'error',
      'no-unused-vars': ['error', { args: 'after-used', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  // The page and the code it shares run in the browser (client/) or in both (common/); the
  // runner, benchmarks and tests hand functions to page.evaluate, which run in the page.
  { files: ['client/**/*.js', 'common/**/*.js', 'runner/**/*.js', 'bench/**/*.js', 'test/**/*.js'], languageOptions: { globals: { ...globals.browser } } },
  { files: ['client/**/*.js', 'common/**/*.js', 'runner/**/*.js', 'server/**/*.js', 'cli/**/*.js'], ignores: ['**/*.spec.js'], rules: { 'max-lines-per-function': ['error', { max: 100 }] } },
];
