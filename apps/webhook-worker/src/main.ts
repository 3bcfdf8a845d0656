import './tracing';
import 'reflect-metadata';
import { serveFromEnv } from '@bursar/service-kit';
import { WorkerSettings } from './config/worker.settings';
import { createWorkerApp } from './worker.app';

serveFromEnv({ name: 'webhook-worker', settings: WorkerSettings, port: (s) => s.WORKER_PORT, create: createWorkerApp });
