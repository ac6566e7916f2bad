/**
 * The suites' test environment: Node's, plus the removal of the temporary folders the test
 * helpers made for a test file (temp.ts) once that file is done, its afterAll hooks included.
 */
import { TestEnvironment } from "jest-environment-node";
import { removeDirs, TEMP_DIRS_KEY } from "./temp";

export default class AxTestEnvironment extends TestEnvironment {
  private readonly tempDirs = new Set<string>();

  constructor(...args: ConstructorParameters<typeof TestEnvironment>) {
    super(...args);
    this.global[TEMP_DIRS_KEY] = this.tempDirs;
  }

  override async teardown(): Promise<void> {
    removeDirs(this.tempDirs);
    await super.teardown();
  }
}
