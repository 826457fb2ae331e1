/**
 * What young-generation collections moved to the old generation, from v8.GCProfiler's statistics: the
 * bytes that outlived two of them. The in-flight table's test and bench/gateway-micro.ts read it.
 */
import type { GCProfilerResult, HeapSpaceStatistics } from 'node:v8';

/** The old generation's used bytes (large objects included) in one of a collection's space lists. */
function oldBytes(spaces: HeapSpaceStatistics[]): number {
  return spaces.filter((s) => s.spaceName === 'old_space' || s.spaceName === 'lo_space').reduce((sum, s) => sum + s.spaceUsedSize, 0);
}

/** Bytes promoted by the scavenges among `statistics`. */
export function promotedBytes(statistics: GCProfilerResult['statistics']): number {
  return statistics
    .filter((gc) => gc.gcType === 'Scavenge')
    .reduce((sum, gc) => sum + oldBytes(gc.afterGC.heapSpaceStatistics) - oldBytes(gc.beforeGC.heapSpaceStatistics), 0);
}
