/**
 * When a discovered target is forgotten: `forget_after` when the profile sets it, else FORGET_FACTOR × the longest
 * schedule among the jobs a target of the profile runs. Prometheus probes every scrape interval, far more often
 * than any schedule worth polling; ten missed schedules of the slowest job mean the inventory dropped the target
 * (or its replica changed), not a slow scrape.
 */
import { jobsFor } from '../collectors/catalog.js';
import { cronIntervalSeconds } from '../config/cron.js';
import { MIN_FORGET_AFTER_SECONDS } from '../config/profiles.js';
import type { ProfileConfig } from '../config/types.js';

export const FORGET_FACTOR = 10;
/** A profile whose targets run no job at all (every collector off) still forgets them: after 10 × 1 min. */
const FALLBACK_SCHEDULE_SECONDS = 60;

/** The longest interval between two runs of any job a target of the profile runs (seconds). */
export function longestScheduleSeconds(profile: ProfileConfig): number {
  const router = { ...profile.settings, name: '', url: '' };
  let longest = 0;
  for (const definition of jobsFor(router)) {
    try {
      longest = Math.max(longest, cronIntervalSeconds(definition.schedule));
    } catch {
      // Schedules are validated at load; an unreadable one sets no bound.
    }
  }
  return longest > 0 ? longest : FALLBACK_SCHEDULE_SECONDS;
}

/**
 * The default is held to the floor an explicit `forget_after` has (MIN_FORGET_AFTER_SECONDS): ten runs of a 5 s
 * job are 50 s, and Prometheus' default scrape interval is a minute, so a target probed at every scrape was
 * forgotten and made again between each two of them, its series gone in between.
 */
export function forgetAfterMsOf(profile: ProfileConfig): number {
  return (profile.forgetAfterSeconds ?? Math.max(MIN_FORGET_AFTER_SECONDS, FORGET_FACTOR * longestScheduleSeconds(profile))) * 1000;
}
