/**
 * `health`'s contract: its descriptor (config defaults) and its metric families. The collector is named after
 * the RouterOS menu users know (`/system health`); its file is `system-health` so that it is not taken for the
 * exporter's own /health report (src/health) or the per-router `health:` verdict thresholds in the config.
 */
import { defineFamily } from '../metrics/family.js';
import type { CollectorDescriptor } from './contract.js';

/**
 * One gauge per kind of sensor, labelled by the sensor's name as the router lists it (`temperature`,
 * `cpu-temperature`, `fan1-speed`, `psu1-state`…): bounded by the board's own sensor list. Fan speed stays in
 * RPM (`_rpm`, as node_exporter's `node_hwmon_fan_rpm`): there is no base unit for rotation, and RPM is what
 * the router, the fan's datasheet and every peer exporter show.
 */
export const SYSTEM_HEALTH_FAMILIES = {
  temperature: defineFamily('routeros_health_temperature_celsius', 'gauge', ['sensor'], 'system/health temperature sensors (type C, e.g. temperature, cpu-temperature) in degrees Celsius.'),
  voltage: defineFamily('routeros_health_voltage_volts', 'gauge', ['sensor'], 'system/health voltage sensors (type V, e.g. voltage, psu1-voltage) in volts.'),
  current: defineFamily('routeros_health_current_amperes', 'gauge', ['sensor'], 'system/health current sensors (type A, e.g. current) in amperes.'),
  power: defineFamily('routeros_health_power_watts', 'gauge', ['sensor'], 'system/health power sensors (type W, e.g. power-consumption) in watts.'),
  fanSpeed: defineFamily('routeros_health_fan_speed_rpm', 'gauge', ['sensor'], 'system/health fan speeds (type RPM, e.g. fan1-speed) in revolutions per minute; a stopped or failed fan reads 0.'),
  stateOk: defineFamily('routeros_health_state_ok', 'gauge', ['sensor'], 'system/health state sensors (e.g. psu1-state, fan-state): 1 ok, 0 fail.'),
} as const;

export const SYSTEM_HEALTH = {
  name: 'health',
  description: 'Hardware sensors from system/health: temperatures, voltages, current, power, fan speeds, PSU and fan states',
  defaultEnabled: true,
  // Sensors change slowly: every 30 s follows temperature trends and tells a failed PSU within a minute.
  defaultSchedule: '*/30 * * * * *',
  jobsPer: 'router',
  healthParts: [],
  families: Object.values(SYSTEM_HEALTH_FAMILIES),
} as const satisfies CollectorDescriptor;
