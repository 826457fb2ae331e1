/**
 * GET /api/v1/solver/stream: one event each time a solver's view changes, carrying the view's new id (for
 * solvable_orders its ETag, to send as If-None-Match), so that a solver fetches only when something
 * changed. The views are a list (solvable_orders, auction): another one is one more entry in solverViews().
 *
 * A view's id can change without any event (an order expires, a balance moves at a new block), so while
 * someone listens the ids are recomputed when a read model advances and on a short tick; the answers
 * behind them are cached until they change, so a check that finds nothing new is cheap.
 */
import type { Book } from '../usecases/book.js';
import { auctionTag, solvableOrders } from '../usecases/queries/auction.js';
import type { ProjectionRunner } from '../read/runner.js';
import { logger } from '../../shared/logger.js';
import { sseFrame, type SseResponse } from './sse.js';

export interface SolverView {
  /** The SSE event name and the `view` field of its data. */
  name: string;
  /** The view's current id: changes exactly when its answer does. */
  id(): Promise<string>;
}

export function solverViews(book: Book): SolverView[] {
  return [
    { name: 'solvable_orders', id: async () => (await solvableOrders(book)).etag },
    // The ETag GET /api/v1/auction answers with, known without building the auction.
    { name: 'auction', id: () => auctionTag(book) },
  ];
}

type Listener = (view: string, id: string) => void;

const log = logger.child({ component: 'solver-stream' });

/** The views' current ids, kept while someone listens. */
export class SolverViewWatch {
  private readonly ids = new Map<string, string>();
  private readonly listeners = new Set<Listener>();
  private checking: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly onAdvanced = () => void this.check();

  constructor(
    private readonly views: SolverView[],
    private readonly runner: ProjectionRunner,
    private readonly tickMs = 1000,
  ) {}

  /** Adds a listener (told of every change of an id); resolves once current() holds fresh ids. */
  async subscribe(listener: Listener): Promise<void> {
    if (this.listeners.size === 0) {
      this.runner.on('advanced', this.onAdvanced);
      this.timer = setInterval(this.onAdvanced, this.tickMs);
      this.timer.unref();
    }
    this.listeners.add(listener);
    await this.check();
  }

  /** Each view's id as last computed. */
  current(): [string, string][] {
    return [...this.ids];
  }

  unsubscribe(listener: Listener): void {
    if (!this.listeners.delete(listener) || this.listeners.size > 0) return;
    this.runner.off('advanced', this.onAdvanced);
    clearInterval(this.timer);
    // Nobody is told of changes now: the next subscriber starts from fresh ids.
    this.ids.clear();
  }

  stop(): void {
    for (const listener of [...this.listeners]) this.unsubscribe(listener);
  }

  /** One check at a time; a check asked for during one runs once more after it. */
  private check(): Promise<void> {
    if (this.checking) {
      this.again = true;
      return this.checking;
    }
    this.checking = (async () => {
      do {
        this.again = false;
        for (const view of this.views) {
          try {
            const id = await view.id();
            if (this.ids.get(view.name) === id) continue;
            const known = this.ids.has(view.name);
            this.ids.set(view.name, id);
            if (known) for (const listener of [...this.listeners]) listener(view.name, id);
          } catch (err) {
            log.warn({ err, view: view.name }, 'computing a solver view failed');
          }
        }
      } while (this.again);
    })().finally(() => {
      this.checking = undefined;
      // Asked for between the loop's last test and here.
      if (this.again && this.listeners.size > 0) void this.check();
    });
    return this.checking;
  }
}

/** The views' ids to `sse`, the response the API opened once the client was given a place (api/streams.ts). */
export async function streamSolverViews(sse: SseResponse, watch: SolverViewWatch): Promise<void> {
  const write = (view: string, id: string) => sse.write(sseFrame({ event: view, data: JSON.stringify({ view, id }) }));
  // Changes before the current ids are written are in them; after, each is written as it comes.
  let ready = false;
  const listener: Listener = (view, id) => {
    if (ready && !write(view, id)) watch.unsubscribe(listener);
  };
  sse.onClose(() => watch.unsubscribe(listener));
  await watch.subscribe(listener);
  if (!sse.isOpen) return watch.unsubscribe(listener);
  ready = true;
  for (const [view, id] of watch.current()) write(view, id);
}
