/**
 * Preloaded (`--import`) into a demo under test: writing the emulator's CA, right after the demo's temporary folder
 * is made, takes half a second, which holds the start in the window where a signal must already be handled. The
 * start itself takes ~15 ms there, too short to hit from outside every time.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const write = fs.writeFileSync;
fs.writeFileSync = function writeFileSync(path, ...rest) {
  if (String(path).endsWith('emulator-ca.pem')) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
  return write.call(this, path, ...rest);
};
syncBuiltinESMExports();
