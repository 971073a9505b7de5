import { describe, expect, it } from 'vitest';
import { chunkMarker, chunkMarkerParts } from './batch-keys.ts';
import { keys } from './keys.ts';

describe('the chunk marker', () => {
  it('reads back the batch and the chunk sort key it was built from', () => {
    const batchId = '0b6f8a2e-5c1d-4e7a-9f3b-2d4c6e8a0b1c';
    const marker = chunkMarker(batchId, 'CHUNK#0000000001#002');
    expect(marker).toBe(`${batchId}#CHUNK#0000000001#002`);
    expect(chunkMarkerParts(marker)).toEqual({ batchId, chunkSk: 'CHUNK#0000000001#002' });
  });

  it('keys a chunk’s history log items by the marker and the part, as stored before', () => {
    expect(keys.historyLog('ws-1', 'Fasteners', keys.historyLogEntry(chunkMarker('0b6f-uuid', 'CHUNK#0000000001#002'), 7))).toEqual({
      PK: 'WS#ws-1#HLOG#IALt_3DGShh9U40D#14',
      SK: 'LOG#0b6f-uuid#CHUNK#0000000001#002#007',
    });
  });
});

describe('a batch’s keys', () => {
  it('name a staged chunk and what it touched as they always have', () => {
    expect(keys.batchChunk('ws-1', 'b-1', 3, 1, 2)).toEqual({ PK: 'WS#ws-1#BATCH#b-1#C3', SK: 'CHUNK#0000000001#002' });
    expect(keys.batchTouched('ws-1', 'b-1', 'CHUNK#0000000001#002', 4)).toEqual({
      PK: 'WS#ws-1#BATCH#b-1',
      SK: 'TOUCHED#0000000001#002#004',
    });
  });
});

describe('an adherence aggregate’s sort key', () => {
  it('reads back its dimension, month and group, even a group holding #', () => {
    const sortKey = keys.adherenceAggregateSortKey('category', '2026-11', 'Nuts#Bolts');
    expect(sortKey).toBe('category#2026-11#Nuts#Bolts');
    expect(keys.adherenceAggregateParts(sortKey)).toEqual({ dimension: 'category', month: '2026-11', value: 'Nuts#Bolts' });
  });

  it('falls within the months a read of its dimension asks for', () => {
    const sortKey = keys.adherenceAggregateSortKey('segment', '2026-11', 'smb');
    const { SKFrom, SKTo } = keys.adherenceMonths('ws-1', 'segment', '2026-11', '2026-11');
    expect(sortKey >= SKFrom && sortKey <= SKTo).toBe(true);
  });
});
