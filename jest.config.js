/**
 * One Jest run for the whole monorepo. The code is ESM TypeScript (execa and friends are
 * ESM-only), so Jest runs with --experimental-vm-modules (see the `test` script) and ts-jest
 * transpiles each file on its own; `npm run typecheck` is what checks types.
 * Two cores: two workers. Suites share one PostgreSQL server and one Redis but each makes
 * its own database and queue prefix (test/support).
 */
export default {
  testEnvironment: "node",
  extensionsToTreatAsEsm: [".ts"],
  transform: {
    "^.+\\.ts$": ["ts-jest", { useESM: true, tsconfig: "tsconfig.json", diagnostics: false }],
  },
  testMatch: ["<rootDir>/apps/*/src/**/*.test.ts", "<rootDir>/packages/*/src/**/*.test.ts", "<rootDir>/test/**/*.test.ts", "<rootDir>/bench/**/*.test.ts", "<rootDir>/training/**/*.test.ts"],
  maxWorkers: 2,
  testTimeout: 60_000,
  verbose: false,
};
