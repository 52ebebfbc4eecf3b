/** What other packages (the CLI) use of the server. */
export { ConfigError, loadConfig, loadDatabaseSettings, type Config } from './config.ts';
export { createLogger } from './logger.ts';
export { runServer, type Started } from './runServer.ts';
export { createServer, type PayrailServer } from './server.ts';
export { DataDirLockedError } from './store/dataDirLock.ts';
export { migrateDatabase, type MigrationReport } from './store/migrateDatabase.ts';
export { rotateMasterKeyOf, type ResealReport } from './services/SecretsAtRest.ts';
export { SecretUnreadable } from './store/SecretBox.ts';
