/** `system`'s contract: its descriptor (config defaults) and its metric families. */
import { defineFamily } from '../metrics/family.js';
import type { CollectorDescriptor } from './contract.js';

/** HELP names the RouterOS path and property a value comes from, so an operator can check it on the router. */
export const SYSTEM_FAMILIES = {
  systemInfo: defineFamily('routeros_system_info', 'info', ['board_name', 'architecture', 'cpu', 'platform', 'version'], 'Router identity from system/resource (board-name, architecture-name, cpu, platform, version); always 1.'),
  cpuLoad: defineFamily('routeros_system_cpu_load_ratio', 'gauge', [], 'system/resource cpu-load / 100.'),
  cpuCores: defineFamily('routeros_system_cpu_cores', 'gauge', [], 'system/resource cpu-count.'),
  cpuFrequency: defineFamily('routeros_system_cpu_frequency_hertz', 'gauge', [], 'system/resource cpu-frequency (MHz on the router) in hertz.'),
  memoryFree: defineFamily('routeros_system_memory_free_bytes', 'gauge', [], 'system/resource free-memory.'),
  memoryTotal: defineFamily('routeros_system_memory_total_bytes', 'gauge', [], 'system/resource total-memory.'),
  diskFree: defineFamily('routeros_system_disk_free_bytes', 'gauge', [], 'system/resource free-hdd-space.'),
  diskTotal: defineFamily('routeros_system_disk_total_bytes', 'gauge', [], 'system/resource total-hdd-space.'),
  uptime: defineFamily('routeros_system_uptime_seconds', 'gauge', [], 'system/resource uptime.'),
} as const;

export const SYSTEM = {
  name: 'system',
  description: 'CPU, memory, disk, uptime and identity from system/resource',
  defaultEnabled: true,
  defaultSchedule: '*/15 * * * * *',
  jobsPer: 'router',
  healthParts: [],
  families: Object.values(SYSTEM_FAMILIES),
} as const satisfies CollectorDescriptor;
