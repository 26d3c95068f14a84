/**
 * Scale-out: N replicas split the routers by a stable hash of the router name, so each router is polled
 * by exactly one replica and keeps its replica while the replica count stays the same.
 */
import { createHash } from 'node:crypto';
import type { ShardConfig } from '../config/types.js';

export function shardOf(routerName: string, count: number): number {
  return createHash('sha256').update(routerName, 'utf8').digest().readUInt32BE(0) % count;
}

export function inShard(routerName: string, shard: ShardConfig | undefined): boolean {
  return shard === undefined || shardOf(routerName, shard.count) === shard.index;
}
