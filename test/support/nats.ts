/**
 * NATS JetStream for the fan-out tests (NATS_URL, default nats://127.0.0.1:4222): whether it is there (a
 * test skips without it on a workstation, but fails under CI, where it must be), a fresh stream name per
 * test, and every message a stream holds, read by an ordered consumer as a subscriber would.
 */
import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';

export const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** Connects, or skips the test (fails it when CI is set) when no NATS server answers. */
export async function natsOrSkip(test: Mocha.Context): Promise<NatsConnection> {
  try {
    return await connect({ servers: natsUrl, timeout: 2000, maxReconnectAttempts: 0 });
  } catch (err) {
    if (process.env.CI) throw new Error(`NATS is not reachable at ${natsUrl} (CI is set, so this fails rather than skips): ${(err as Error).message}`);
    test.skip();
    throw err;
  }
}

/** Waits until `stream` exists (the service creates it in the background once connected). */
export async function streamCreated(nc: NatsConnection, stream: string, timeoutMs = 10_000): Promise<void> {
  const jsm = await nc.jetstreamManager();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await jsm.streams.info(stream);
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`stream ${stream} was not created within ${timeoutMs} ms: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

export const testStreamName = () => `ethgate_test_${randomBytes(5).toString('hex')}`;

export interface Received {
  subject: string;
  msgId: string | undefined;
  position: number;
  type: string;
}

/**
 * Every message of `stream` from its start: until `count` arrived and then half a second more (a duplicate
 * would show), or until `timeoutMs` passed with fewer.
 */
export async function consumeAll(nc: NatsConnection, stream: string, count: number, timeoutMs = 20_000): Promise<Received[]> {
  const consumer = await nc.jetstream().consumers.get(stream);
  const messages = await consumer.consume();
  const received: Received[] = [];
  const timer = setTimeout(() => messages.stop(), timeoutMs);
  let settling: NodeJS.Timeout | undefined;
  for await (const m of messages) {
    const event = m.json<{ position: number; type: string }>();
    received.push({ subject: m.subject, msgId: m.headers?.get('Nats-Msg-Id'), position: event.position, type: event.type });
    if (received.length >= count && !settling) settling = setTimeout(() => messages.stop(), 500);
  }
  clearTimeout(timer);
  clearTimeout(settling);
  return received;
}
