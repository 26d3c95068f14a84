/** The RouterOS 7 REST emulator: public API (docs/emulator.md). */
export { startEmulator, DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_STALE_AFTER_MS } from './emulator.js';
export { DEMO_ROUTERS, DEMO_FACTS, DEMO_KEYS } from './scenarios/demo.js';
export { scaleScenario, scaleRouterName, DEFAULT_SCALE } from './scenarios/scale.js';
export type { ScaleShape } from './scenarios/scale.js';
export { ALL_POLICIES } from './types.js';
export type {
  AddressSeed,
  BandwidthServer,
  BoardSeed,
  EmulatedRouter,
  Emulator,
  EmulatorOptions,
  Faults,
  FirewallRuleSeed,
  ForcedStatus,
  HealthFaults,
  HealthForm,
  HealthSeed,
  HealthSensors,
  LinkSeed,
  LinkType,
  PackageUpdateSeed,
  PeerLife,
  PeerSeed,
  PingBehaviour,
  RebootOptions,
  RouteSeed,
  RouterboardSeed,
  RouterSeed,
  RouterStats,
  Row,
  UserSeed,
  WgInterfaceSeed,
} from './types.js';
