// Imported first by main.ts: instrumentation must patch http, express, pg and ioredis before they load.
import { startTracing } from '@bursar/service-kit/tracing';

startTracing('control');
