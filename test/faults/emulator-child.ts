/**
 * Emulators in a process of their own, for tests that time the exporter: their TLS handshakes, dripped bodies
 * and big replies then cost the exporter's event loop nothing. Driven over IPC by emulator-process.ts; every
 * emulator shares one clock that only moves when told to.
 */
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import type { ChildCall, ChildAnswer } from './emulator-process.js';

let clock = 0;
const emulators: Emulator[] = [];

function router(name: string) {
  const found = emulators.find((emulator) => emulator.routers.some((r) => r.name === name));
  if (found === undefined) throw new Error(`no emulated router named ${name}`);
  return found.router(name);
}

async function perform(call: ChildCall): Promise<unknown> {
  switch (call.op) {
    case 'start': {
      clock = call.clock;
      for (const options of call.emulators) emulators.push(await startEmulator({ ...(options as EmulatorOptions), now: () => clock }));
      return emulators.map((emulator) => ({ ca: emulator.ca, routers: emulator.routers.map((r) => ({ name: r.name, url: r.url })) }));
    }
    case 'faults':
      router(call.router).setFaults(call.faults);
      return undefined;
    case 'reboot':
      router(call.router).reboot();
      return undefined;
    case 'stop':
      await router(call.router).stop();
      return undefined;
    case 'advance':
      clock += call.ms;
      return clock;
    case 'close':
      await Promise.all(emulators.map((emulator) => emulator.close()));
      return undefined;
  }
}

process.on('message', (call: ChildCall) => {
  perform(call).then(
    (value) => process.send?.({ id: call.id, value } satisfies ChildAnswer),
    (error: unknown) => process.send?.({ id: call.id, error: error instanceof Error ? error.message : String(error) } satisfies ChildAnswer),
  );
});
process.send?.({ id: -1, value: 'ready' } satisfies ChildAnswer);
