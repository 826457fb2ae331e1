/**
 * A cap on long-lived connections (event streams, WebSockets): at most `perClient` held by one client and
 * `total` by everyone. A client is who the access layer says it is: its Client.limitId (the address through
 * trusted proxies only, an IPv6 address by its /64), the same bucket its rate limits are counted in, so that
 * a client cannot hold more streams by rotating addresses it could not use against the limits either. Each
 * held connection is a ticket released once, when it ends. Pure counting, no I/O: the parts decide how a
 * refusal is answered (in their own shape). This is apart from MAX_CONNECTIONS, the listeners' cap on open
 * sockets of any kind (src/http/server.ts), which closes what comes over it without an answer.
 */

export interface ConnectionCapLimits {
  /** Connections one client (one limitId) may hold at once. */
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

  /** Connections held now (by the client counted as `limitId`, or by everyone). */
  count(limitId?: string): number {
    return limitId === undefined ? this.held : (this.byClient.get(limitId) ?? 0);
  }

  /** Takes a place for the client counted as `limitId` (Client.limitId), or says which cap refuses it. */
  admit(limitId: string): Admission {
    const mine = this.byClient.get(limitId) ?? 0;
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
    this.byClient.set(limitId, mine + 1);
    this.held++;
    let released = false;
    return {
      admitted: true,
      release: () => {
        if (released) return;
        released = true;
        this.held--;
        const left = (this.byClient.get(limitId) ?? 1) - 1;
        if (left === 0) this.byClient.delete(limitId);
        else this.byClient.set(limitId, left);
      },
    };
  }
}
