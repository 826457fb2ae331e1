/** The subscribers of a store, told about each new head once, in increasing order. */
import { logger } from '../../shared/logger.js';

type Listener = (head: number) => void;

const log = logger.child({ component: 'eventstore' });

export class HeadListeners {
  // One entry per subscription, so that the same function subscribed twice is also ended one at a time.
  private readonly subscriptions = new Set<{ listener: Listener }>();

  /** `reported`: the head subscribers need not hear about (the head when the store opened). */
  constructor(private reported: number) {}

  add(listener: Listener): () => void {
    const subscription = { listener };
    this.subscriptions.add(subscription);
    return () => {
      this.subscriptions.delete(subscription);
    };
  }

  /**
   * Tells every subscriber about `head` unless a head at least as new was already told: a store learns of
   * the same commit from several sources (its own append, NOTIFY) and in no guaranteed order.
   */
  report(head: number): void {
    if (head <= this.reported) return;
    this.reported = head;
    for (const { listener } of this.subscriptions) {
      try {
        listener(head);
      } catch (err) {
        // A subscriber's bug must not fail the append that triggered it nor starve the other subscribers.
        log.error({ err, head }, 'event store subscriber threw');
      }
    }
  }
}
