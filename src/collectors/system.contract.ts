/** `system`'s contract: its descriptor (config defaults) and its metric families. */
import { defineFamily } from '../metrics/family.js';
import type { CollectorDescriptor } from './contract.js';

/** HELP names the RouterOS path and property a value comes from, so an operator can check it on the router. */
export const SYSTEM_FAMILIES = {
  systemInfo: defineFamily(
    'routeros_system_info',
    'info',
    ['board_name', 'architecture', 'cpu', 'platform', 'version', 'build_time', 'factory_software'],
    'Router identity from system/resource (board-name, architecture-name, cpu, platform, version, build-time as the router writes it, factory-software or from 7.24 minimum-version); a label the router does not give is empty; always 1.',
  ),
  cpuLoad: defineFamily('routeros_system_cpu_load_ratio', 'gauge', [], 'system/resource cpu-load / 100.'),
  cpuCores: defineFamily('routeros_system_cpu_cores', 'gauge', [], 'system/resource cpu-count.'),
  cpuFrequency: defineFamily('routeros_system_cpu_frequency_hertz', 'gauge', [], 'system/resource cpu-frequency (MHz on the router) in hertz.'),
  memoryFree: defineFamily('routeros_system_memory_free_bytes', 'gauge', [], 'system/resource free-memory.'),
  memoryTotal: defineFamily('routeros_system_memory_total_bytes', 'gauge', [], 'system/resource total-memory.'),
  diskFree: defineFamily('routeros_system_disk_free_bytes', 'gauge', [], 'system/resource free-hdd-space.'),
  diskTotal: defineFamily('routeros_system_disk_total_bytes', 'gauge', [], 'system/resource total-hdd-space.'),
  uptime: defineFamily('routeros_system_uptime_seconds', 'gauge', [], 'system/resource uptime.'),
  badBlocks: defineFamily('routeros_system_bad_blocks_ratio', 'gauge', [], 'system/resource bad-blocks / 100: the share of NAND flash blocks marked bad (only NAND boards report it).'),
  // Sectors, not bytes: RouterOS does not say how large a sector is, so no byte figure is made up.
  writeSectors: defineFamily('routeros_system_write_sectors_total', 'counter', [], 'system/resource write-sect-total: storage sectors written over the device\'s life (flash wear), in sectors of a size RouterOS does not report.'),
  writeSectorsSinceReboot: defineFamily('routeros_system_write_sectors_since_reboot_total', 'counter', [], 'system/resource write-sect-since-reboot: storage sectors written since the router booted, in sectors of a size RouterOS does not report.'),
} as const;

export const SYSTEM = {
  name: 'system',
  description: 'CPU, memory, disk, flash wear, uptime and identity from system/resource',
  defaultEnabled: true,
  defaultSchedule: '*/15 * * * * *',
  jobsPer: 'router',
  healthParts: [],
  families: Object.values(SYSTEM_FAMILIES),
} as const satisfies CollectorDescriptor;
