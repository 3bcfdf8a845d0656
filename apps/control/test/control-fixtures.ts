import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';

/** Helpers that drive the real routes, so each test reads as the steps a client would take. */
export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

export async function createWorkspace(app: INestApplication, token: string, body: Record<string, unknown>) {
  const res = await request(app.getHttpServer()).post('/control/v1/workspaces').set(bearer(token)).send(body).expect(201);
  return res.body.data as { id: string; slug: string };
}

export async function createAgent(app: INestApplication, token: string, slug: string, body: Record<string, unknown> = {}) {
  const res = await request(app.getHttpServer())
    .post(`/control/v1/workspaces/${slug}/agents`)
    .set(bearer(token))
    .send({ name: 'buyer', ...body })
    .expect(201);
  return res.body.data as { id: string; api_key: string };
}

/** Membership routes come later; until then tests seat a person in a role directly. */
export async function seatMember(app: INestApplication, workspaceId: string, sub: string, role: string): Promise<void> {
  await app
    .get(DataSource)
    .query(`INSERT INTO workspace_memberships (workspace_id, user_sub, role) VALUES ($1, $2, $3)`, [workspaceId, sub, role]);
}
