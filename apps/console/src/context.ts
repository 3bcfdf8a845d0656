import { createContext, useContext } from 'react';
import type { Api, QueryHooks, Schemas } from './api/client';

export interface ConsoleContext {
  api: Api;
  /** TanStack Query hooks over `api`. */
  $api: QueryHooks;
  workspace: Schemas['WorkspaceSchema'];
  can(capability: 'read' | 'approve' | 'manage_policy' | 'manage_members'): boolean;
}

export const Ctx = createContext<ConsoleContext | null>(null);

export function useConsole(): ConsoleContext {
  const ctx = useContext(Ctx);
  if (!ctx) throw new Error('no workspace selected');
  return ctx;
}
