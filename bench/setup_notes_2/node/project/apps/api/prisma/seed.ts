import { PrismaClient } from '@prisma/client';

const prisma = new PrismaClient();

const plots = Array.from({ length: 24 }, (_, i) => ({
  label: `A${String(i + 1).padStart(2, '0')}`,
  areaSqm: i < 12 ? 10 : 20,
  season: new Date().getFullYear(),
}));

await prisma.plot.createMany({ data: plots, skipDuplicates: true });
await prisma.$disconnect();
