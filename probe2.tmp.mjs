const f = process.argv[2];
try { await import(f); } catch (e) { }
if (process.moduleLoadList.includes('NativeModule internal/deps/undici/undici')) console.log('UNDICI', f);
