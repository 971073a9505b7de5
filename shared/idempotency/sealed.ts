// Stored answers that show a secret once, sealed under the webhook data key: imported only by the handlers whose answers need it, so no other function bundles the key's reader.
import { dataKey, openText, sealText } from '#shared/webhooks/secrets.ts';
import type { AnswerCodec, KeyPlace } from './store.ts';

/** Sealed to its place: the associated data names the workspace, the operation and the key, so a copied answer does not open. */
export function sealedAnswers(operation: string): AnswerCodec {
  const context = (place: KeyPlace) => `idempotent-answer:${place.workspaceId}:${operation}:${place.keyDigest}`;
  return {
    encode: async (json, place) => sealText(await dataKey(), json, context(place)),
    decode: async (stored, place) => openText(await dataKey(), String(stored), context(place)),
  };
}
