import { PGlite } from '@electric-sql/pglite';
const dir = process.argv[2];
const db = await PGlite.create(dir === 'mem' ? 'memory://' : dir);
const t = async (label: string, fn: () => Promise<unknown>, n = 1000) => {
  for (let i = 0; i < 200; i++) await fn();
  const c = process.cpuUsage();
  const s = performance.now();
  for (let i = 0; i < n; i++) await fn();
  const cu = process.cpuUsage(c);
  console.log(
    label,
    'wall',
    ((performance.now() - s) / n).toFixed(3),
    'ms; cpu',
    ((cu.user + cu.system) / 1000 / n).toFixed(3),
    'ms',
  );
};
await t('select 1', () => db.query('select 1'));
await db.close();
