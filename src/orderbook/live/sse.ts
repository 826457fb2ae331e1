/**
 * One Server-Sent Events response: the headers, a heartbeat comment so that proxies keep an idle stream
 * open, and the bounds on a client that does not read. A live stream never waits for its slowest reader:
 * frames are written at once, and a client holding more than `maxBufferedBytes` unread is cut off with a
 * last `slow-consumer` event that says where to resume; a catch-up writer (which can wait) uses drained().
 * Whichever it is, a client that has read nothing for `stallMs` while bytes wait for it (the socket took
 * none of them) is cut off the same way, so that a client that stops reading holds its connection and
 * buffers for a bounded time only; a slow reader that keeps reading is not.
 */
import type { ServerResponse } from 'node:http';

export interface SseLimits {
  /** A comment line is written when nothing else was for this long. */
  heartbeatMs: number;
  /** Bytes a client may leave unread (in this process's buffers) before it is cut off. */
  maxBufferedBytes: number;
  /** How long a client may leave written bytes unread (in catch-up or live) before it is cut off. */
  stallMs: number;
  /** Bytes of the log a catch-up turns into frames at a time, and so holds while its client reads them. */
  catchUpChunkBytes: number;
}

/** A frame's lines; `data` must hold no line break (JSON.stringify's output holds none). */
export function sseFrame(fields: { id?: number | string; event?: string; data: string }): string {
  let frame = '';
  if (fields.id !== undefined) frame += `id: ${fields.id}\n`;
  if (fields.event !== undefined) frame += `event: ${fields.event}\n`;
  return `${frame}data: ${fields.data}\n\n`;
}

/**
 * Bytes a socket has handed to the operating system: its bytesWritten counts what still waits in its own
 * buffer too, so that is taken off. It moves only when the client reads (the system's buffers full).
 */
export function dispatched(socket: { bytesWritten: number; writableLength: number } | null | undefined): number {
  return socket ? socket.bytesWritten - socket.writableLength : 0;
}

/** After a cut-off, the socket is destroyed if the client has not read the last message by then. */
const LAST_MESSAGE_GRACE_MS = 5_000;

export class SseResponse {
  private closed = false;
  /** The id of the last frame written, which the last message names for resuming. */
  private lastId: number | string | undefined;
  private lastWrite = Date.now();
  /** Since when bytes have waited for the client with none of them taken by the socket; 0: not waiting. */
  private stalledSince = 0;
  /** The bytes the socket had handed to the system when stalledSince was set. */
  private writtenAt = 0;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly closeListeners: (() => void)[] = [];

  constructor(
    private readonly res: ServerResponse,
    private readonly limits: SseLimits,
  ) {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // nginx and similar proxies buffer responses unless told not to.
      'x-accel-buffering': 'no',
    });
    // An EventSource reconnects after a second (default: about three) with Last-Event-ID.
    res.write(': stream open\nretry: 1000\n\n');
    const tick = Math.max(1, Math.floor(Math.min(limits.heartbeatMs, limits.stallMs) / 2));
    this.heartbeat = setInterval(() => {
      if (this.stalled()) return this.cutOff(`the client read nothing for ${limits.stallMs} ms`);
      if (Date.now() - this.lastWrite >= limits.heartbeatMs / 2) this.write(': heartbeat\n\n');
    }, tick);
    res.once('close', () => this.finish());
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  /**
   * Writes a frame (or frames) now (`id`: the last frame's id, if it has one); false once the stream is
   * closed. A client that leaves more than the bound unread is cut off.
   */
  write(frame: string | Buffer, id?: number | string): boolean {
    if (this.closed) return false;
    this.res.write(frame);
    this.lastWrite = Date.now();
    if (id !== undefined) this.lastId = id;
    if (this.res.writableLength > this.limits.maxBufferedBytes) {
      this.cutOff(`the client left more than ${this.limits.maxBufferedBytes} bytes unread`);
      return false;
    }
    return true;
  }

  /** Whether bytes have waited for the client for stallMs with the socket taking none (checked each tick). */
  private stalled(): boolean {
    if (this.res.writableLength === 0) {
      this.stalledSince = 0;
      return false;
    }
    const written = dispatched(this.res.socket);
    if (this.stalledSince === 0 || written !== this.writtenAt) {
      this.stalledSince = Date.now();
      this.writtenAt = written;
      return false;
    }
    return Date.now() - this.stalledSince >= this.limits.stallMs;
  }

  /** Resolves when what was written has left this process (or the stream closed: cut off when stalled). */
  drained(): Promise<void> {
    if (this.closed || this.res.writableLength === 0 || !this.res.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        resolve();
      };
      this.res.once('drain', done);
      this.onClose(done);
    });
  }

  /** Ends the stream (the service stops, or the client's time is up). */
  end(): void {
    if (this.closed) return;
    this.res.end();
    this.finish();
  }

  private cutOff(why: string): void {
    if (this.closed) return;
    const description =
      `${why} and is disconnected` + (this.lastId === undefined ? '' : `; reconnect with Last-Event-ID: ${this.lastId} to resume`);
    this.res.end(sseFrame({ event: 'slow-consumer', data: JSON.stringify({ errorType: 'SlowConsumer', description }) }));
    const socket = this.res.socket;
    this.finish();
    // The client may never read again: do not keep its socket (and buffers) for it.
    setTimeout(() => socket?.destroy(), LAST_MESSAGE_GRACE_MS).unref();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
