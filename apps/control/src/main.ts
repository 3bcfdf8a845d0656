import './tracing';
import 'reflect-metadata';
import { serveFromEnv } from '@bursar/service-kit';
import { ControlSettings } from './config/control.settings';
import { createControlApp } from './control.app';

serveFromEnv({ name: 'control', settings: ControlSettings, port: (s) => s.CONTROL_PORT, create: createControlApp });
