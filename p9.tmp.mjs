const id = process.argv[2];
globalThis.gc(); const m0 = process.memoryUsage();
globalThis.x = await import(id);
globalThis.gc(); await new Promise(r => setTimeout(r, 100)); globalThis.gc(); const m = process.memoryUsage();
console.log(id, 'heap +', ((m.heapUsed - m0.heapUsed) / 1048576).toFixed(2), 'MB, rss +', ((m.rss - m0.rss) / 1048576).toFixed(1));
