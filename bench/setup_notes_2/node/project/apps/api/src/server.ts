import Fastify from 'fastify';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import sensible from '@fastify/sensible';
import { PrismaClient } from '@prisma/client';
import { plotSchema } from '@plotkeeper/shared';

const prisma = new PrismaClient();
const app = Fastify({ logger: true });

await app.register(helmet);
await app.register(cors, { origin: process.env.NEXT_PUBLIC_APP_ORIGIN ?? 'http://localhost:3000' });
await app.register(cookie, { secret: process.env.SESSION_SECRET });
await app.register(sensible);

app.get('/health', async () => ({ ok: true }));

app.get('/plots', async () => {
  const plots = await prisma.plot.findMany({ where: { reservedBy: null } });
  return plots.map((p) => plotSchema.parse(p));
});

const port = Number(process.env.API_PORT ?? 4000);
await app.listen({ port, host: '0.0.0.0' });
