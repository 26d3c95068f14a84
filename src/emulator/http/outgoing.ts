/**
 * A reply as the emulator has made it and before it is written: what the faults rewrite (faults.ts) and what the
 * sender writes (send.ts). Its own file, so that neither of those imports the other for it.
 */
export interface Outgoing {
  status: number;
  contentType?: string;
  body: Buffer;
  headers?: Record<string, string>;
}
