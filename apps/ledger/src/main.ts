import './tracing';
import 'reflect-metadata';
import { serveFromEnv } from '@bursar/service-kit';
import { LedgerSettings } from './config/ledger.settings';
import { createLedgerApp } from './ledger.app';

serveFromEnv({ name: 'ledger', settings: LedgerSettings, port: (s) => s.LEDGER_PORT, create: createLedgerApp });
