/**
 * A Server-Sent Events client for tests, on node:http (so that it can stop reading, as a stalled client
 * does): it parses frames as they arrive and keeps each with the time it arrived.
 */
import { request, type IncomingMessage, type ClientRequest } from 'node:http';
import { until } from './wait.js';

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
  /** performance.now() when the frame was parsed. */
  at: number;
}

export interface SseClient {
  status: number;
  /** The body of a refused request (status other than 200). */
  body: string;
  events: SseEvent[];
  /** Comment lines (heartbeats), with arrival times. */
  comments: { text: string; at: number }[];
  ended: boolean;
  response: IncomingMessage;
  /** Stops reading the socket (the server's writes pile up), or starts again. */
  pause(): void;
  resume(): void;
  close(): void;
  /** Waits until `count` events arrived (those with `event` if given). */
  waitFor(count: number, timeoutMs?: number): Promise<SseEvent[]>;
}

/** `localAddress`: the loopback address the client connects from (a proxy at 127.0.0.2, say). */
export function openSse(url: string, headers: Record<string, string> = {}, options: { localAddress?: string } = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = request(url, { headers: { accept: 'text/event-stream', ...headers }, localAddress: options.localAddress }, (res) => {
      const client: SseClient = {
        status: res.statusCode ?? 0,
        body: '',
        events: [],
        comments: [],
        ended: false,
        response: res,
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
        async waitFor(count, timeoutMs = 10_000) {
          await until(() => client.events.length >= count || client.ended, `${count} stream events (have ${client.events.length})`, timeoutMs);
          if (client.events.length < count) throw new Error(`the stream ended after ${client.events.length} of ${count} events`);
          return client.events.slice(0, count);
        },
      };
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (client.status !== 200) {
          client.body += chunk;
          return;
        }
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const at = performance.now();
          const event: SseEvent = { data: '', at };
          let hasData = false;
          for (const line of frame.split('\n')) {
            if (line.startsWith(':')) client.comments.push({ text: line.slice(1).trim(), at });
            else if (line.startsWith('id: ')) event.id = line.slice(4);
            else if (line.startsWith('event: ')) event.event = line.slice(7);
            else if (line.startsWith('data: ')) {
              event.data += (hasData ? '\n' : '') + line.slice(6);
              hasData = true;
            }
          }
          if (hasData) client.events.push(event);
        }
      });
      const end = () => {
        client.ended = true;
      };
      res.on('end', end);
      res.on('close', end);
      res.on('error', end);
      resolve(client);
    });
    req.on('error', reject);
    req.end();
  });
}
