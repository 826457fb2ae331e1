/**
 * Issue 29, item 4, against the service as a process (on an anvil the test owns): one token whose balanceOf
 * runs out of gas or hits INVALID must not freeze the balances of everyone. Once it breaks for an owner,
 * that owner's order leaves the solvable orders alone; the other owners' orders stay, and a change of their
 * balances in the same blocks still shows (an allowance revoked takes an order out); healed, the order is
 * back. Nothing is appended to the log meanwhile and the process serves throughout.
 */
import assert from 'node:assert/strict';
import { Wallet, type Contract } from 'ethers';
import { bootstrapDevChain, DEV_DEPLOYER, type DevChain } from '../../src/wiring/gpv2.js';
import { gpv2Domain } from '../../src/orderbook/domain/eip712.js';
import { gasFundedWallet, startTestChain, type TestChain } from '../support/chain.js';
import { externalChainEnv } from '../support/external-market.js';
import { http, postJson } from '../support/http.js';
import { e18, signed } from '../support/onchain.js';
import { assertServing, logHead } from '../support/refusals.js';
import { removeDataDir, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { deployFaultyToken, fundTrader, mined, testToken } from '../support/solver.js';
import { until } from '../support/wait.js';

describe('hostile: a token whose balanceOf fails (issue 29, item 4)', function () {
  this.timeout(180_000);
  let chain: TestChain;
  let dev: DevChain;
  let service: ServiceProcess;
  let faulty: Contract;

  before(async () => {
    chain = await startTestChain({ chainId: 1 });
    dev = await bootstrapDevChain(chain.rpc);
    faulty = await deployFaultyToken(new Wallet(DEV_DEPLOYER.privateKey, chain.provider));
    service = await startServiceProcess({ env: { ...externalChainEnv(chain, dev), LOG_LEVEL: 'warn' } });
  });
  after(async () => {
    await service?.stop();
    if (service) removeDataDir(service.dataDir);
    await chain?.stop();
  });

  const solvable = async () => ((await http(`${service.url}/api/v1/solvable_orders`)).json as { uid: string }[]).map((o) => o.uid);

  for (const [fault, name] of [[1, 'runs out of gas'], [2, 'hits INVALID']] as const) {
    it(`an owner whose token ${name} loses only its own orders, until it reads again`, async () => {
      const token = (await faulty.getAddress()).toLowerCase();
      const domain = gpv2Domain(dev.chainId, dev.settlement);
      const trader = async (sell: string) => {
        const wallet = await gasFundedWallet(chain.provider, chain);
        await fundTrader(sell, wallet, e18(10), dev.vaultRelayer);
        return wallet;
      };
      const [alice, bob, carol] = [await trader(token), await trader(dev.tokens.TKA), await trader(dev.tokens.TKA)];
      const place = async (owner: Wallet, sellToken: string) => {
        const order = await signed(owner, domain, { sellToken, buyToken: dev.tokens.TKB, sellAmount: e18(1), buyAmount: e18(1) });
        const res = await postJson(`${service.url}/api/v1/orders`, order.body);
        assert.equal(res.status, 201, res.text);
        return order.uid;
      };
      const [a, b, c] = [await place(alice, token), await place(bob, dev.tokens.TKA), await place(carol, dev.tokens.TKA)];
      await until(async () => (await solvable()).filter((u) => [a, b, c].includes(u)).length === 3, 'the three orders to be solvable', 20_000);
      const head = await logHead(service.url);

      await mined(faulty.setFault(alice.address, fault));
      await until(async () => !(await solvable()).includes(a), "alice's order to leave the solvable orders", 20_000);
      assert.ok((await solvable()).includes(b) && (await solvable()).includes(c), "the others' stay");
      // The refresh goes on for everyone else: carol's revoked allowance shows while alice's token still fails.
      await mined(testToken(dev.tokens.TKA, carol).approve(dev.vaultRelayer, 0n));
      await until(async () => !(await solvable()).includes(c), "carol's unfunded order to leave", 20_000);
      assert.ok((await solvable()).includes(b) && !(await solvable()).includes(a));

      await mined(faulty.setFault(alice.address, 0));
      await until(async () => (await solvable()).includes(a), "alice's order back once her token answers", 20_000);
      assert.equal(await logHead(service.url), head, 'nothing appended');
      await assertServing(service.url, service.child);
    });
  }
});
