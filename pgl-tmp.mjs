import { PGlite } from '@electric-sql/pglite';
const t0 = performance.now();
const a = await PGlite.create('memory://');
const t1 = performance.now();
const dump = await a.dumpDataDir('none');
const t2 = performance.now();
console.log('create', (t1-t0).toFixed(0), 'dump', (t2-t1).toFixed(0), 'size', dump.size);
for (let i=0;i<3;i++){ const s=performance.now(); const b = await PGlite.create('memory://', { loadDataDir: dump }); await b.query('select 1'); console.log('load', (performance.now()-s).toFixed(0)); }
for (let i=0;i<2;i++){ const s=performance.now(); const b = await PGlite.create('memory://'); console.log('fresh', (performance.now()-s).toFixed(0)); }
