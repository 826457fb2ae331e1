/**
 * Identical reads in flight at the same time share one upstream call: the first caller starts it, later
 * callers with the same key get the same promise until it settles. Only reads go through here (see
 * failsafe/policy.ts): two clients asking the same thing at the same moment may be given the same answer.
 */
import type { RpcOutcome } from '../jsonrpc.js';
import { InFlight } from '../../shared/in-flight.js';

export class Coalescer {
  /** Not a Map, see in-flight.ts. */
  private readonly inFlight = new InFlight<Promise<RpcOutcome>>();

  /** `joined` is called when the caller joins a call already in flight (for the metric). */
  run(key: string, call: () => Promise<RpcOutcome>, joined: () => void): Promise<RpcOutcome> {
    const existing = this.inFlight.get(key);
    if (existing) {
      joined();
      return existing;
    }
    const started = call();
    this.inFlight.set(key, started);
    const forget = () => {
      this.inFlight.delete(key);
    };
    started.then(forget, forget);
    return started;
  }
}
