/**
 * A PostgreSQL cluster of the test's own (initdb into a temporary directory, trust auth,
 * 127.0.0.1 and a spare port), so that it can be stopped and started: the shared server
 * serves every other suite and is never touched. The class lives in the testkit, which also
 * starts one for a whole run when the machine has no server; its programs are looked up
 * (AX_PG_BIN, `pg_config --bindir`, PATH, the newest /usr/lib/postgresql/<version>/bin).
 */
export { PrivatePostgres, type StopMode } from "@ax/testkit";
