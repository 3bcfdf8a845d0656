import { join } from 'node:path';
import { describeErrorCatalogs } from '@bursar/testing';

describeErrorCatalogs('control', join(__dirname, '..'), 8, ['runtime_key_required', 'budget_ceiling', 'insufficient_role']);
