/**
 * A cap on long-lived connections (event streams, WebSockets): at most `perClient` held by one client
 * address and `total` by everyone. Each held connection is a ticket released once, when it ends. Pure
 * counting, no I/O: the channels decide how a refusal is answered (429 in their own shape).
 */

export interface ConnectionCapLimits {
  /** Connections one client address may hold at once. */
  perClient: number;
  /** Connections all clients together may hold at once. */
  total: number;
}

export type Admission = { admitted: true; release: () => void } | { admitted: false; scope: 'client' | 'total'; description: string };

export class ConnectionCap {
  private readonly byClient = new Map<string, number>();
  private held = 0;

  constructor(
    private readonly limits: ConnectionCapLimits,
    /** What the refusals call these connections ("event streams", "WebSocket connections"). */
    private readonly what: string,
    /** The settings that raise the limits, named in the refusals. */
    private readonly settings: { perClient: string; total: string },
  ) {}

  /** Connections held now (by `client`, or by everyone). */
  count(client?: string): number {
    return client === undefined ? this.held : (this.byClient.get(client) ?? 0);
  }

  admit(client: string): Admission {
    const mine = this.byClient.get(client) ?? 0;
    if (mine >= this.limits.perClient) {
      return {
        admitted: false,
        scope: 'client',
        description: `at most ${this.limits.perClient} ${this.what} per client address (${this.settings.perClient}); close one first`,
      };
    }
    if (this.held >= this.limits.total) {
      return {
        admitted: false,
        scope: 'total',
        description: `the service holds its most ${this.what} (${this.limits.total}, ${this.settings.total}); try again later`,
      };
    }
    this.byClient.set(client, mine + 1);
    this.held++;
    let released = false;
    return {
      admitted: true,
      release: () => {
        if (released) return;
        released = true;
        this.held--;
        const left = (this.byClient.get(client) ?? 1) - 1;
        if (left === 0) this.byClient.delete(client);
        else this.byClient.set(client, left);
      },
    };
  }
}
