/** Jest globalTeardown: stops and removes the servers the globalSetup started, if any. */
export default async function globalTeardown(): Promise<void> {
  const state = globalThis.__axTestServices;
  if (!state) return;
  globalThis.__axTestServices = undefined;
  process.removeListener("exit", state.onExit);
  process.removeListener("SIGINT", state.onSignal);
  process.removeListener("SIGTERM", state.onSignal);
  await state.services.stop();
}
