/**
 * One Jest run for the whole monorepo. The code is ESM TypeScript (execa and friends are
 * ESM-only), so Jest runs with --experimental-vm-modules (see the `test` script) and ts-jest
 * transpiles each file on its own; `npm run typecheck` is what checks types.
 * Two cores: two workers. Suites share one PostgreSQL server and one Redis but each makes
 * its own database and queue prefix (packages/testkit). The globalSetup finds those servers,
 * or starts private ones for the run when nothing answers on 127.0.0.1:5432 / 6379, and the
 * globalTeardown stops what it started; the environment removes the temporary folders the
 * testkit made for a test file once the file is done.
 */
export default {
  testEnvironment: "<rootDir>/packages/testkit/src/jest-environment.ts",
  globalSetup: "<rootDir>/packages/testkit/src/jest-global-setup.ts",
  globalTeardown: "<rootDir>/packages/testkit/src/jest-global-teardown.ts",
  extensionsToTreatAsEsm: [".ts"],
  transform: {
    "^.+\\.ts$": ["ts-jest", { useESM: true, tsconfig: "tsconfig.json", diagnostics: false }],
  },
  testMatch: [
    "<rootDir>/apps/*/src/**/*.test.ts",
    "<rootDir>/packages/*/src/**/*.test.ts",
    "<rootDir>/packages/*/test/**/*.test.ts",
    "<rootDir>/test/**/*.test.ts",
    "<rootDir>/bench/**/*.test.ts",
    "<rootDir>/training/**/*.test.ts",
  ],
  maxWorkers: 2,
  testTimeout: 60_000,
  verbose: false,
};
