import assert from 'node:assert/strict';
import {
  Contract,
  MaxUint256,
  TypedDataEncoder,
  Wallet,
  concat,
  keccak256,
  
  toUtf8Bytes,
  type InterfaceAbi,
  type TransactionReceipt,
 } from 'ethers';
import { gpv2Artifact } from '../../../src/contracts/artifacts.js';
import { bootstrapDevChain, type DevChain } from '../../../src/wiring/gpv2.js';
import { isValidEip1271Signature } from '../../../src/orderbook/chain/eip1271.js';
import { ChainError } from '../../../src/orderbook/chain/rpc.js';
import {
  decodeSettlementLog,
  logKey,
  settlementTopics,
  type DecodedLog,
  type RawLog,
} from '../../../src/orderbook/chain/settlement-events.js';
import { gasFundedWallet, startTestChain, type TestChain } from '../../support/chain.js';
import { ZERO_APP_DATA } from '../../support/orders.js';
import { gpv2Domain, ORDER_TYPES } from '../../../src/orderbook/domain/eip712.js';
import {
  deployEip1271Wallet,
  eip1271Wallet,
  fundTrader,
  invalidateOrder,
  mined,
  orderDigest,
  orderUid,
  setPreSignature,
  signOrder,
  testToken,
  tradeSignature,
  TestSolver,
  type TestOrder,
} from '../../support/solver.js';
import { e18 } from '../../support/onchain.js';


describe('settlement events', () => {
  it('have the topic0 values of the spec, taken from the contract ABI', () => {
    assert.deepEqual(settlementTopics(), {
      Trade: '0xa07a543ab8a018198e99ca0184c93fe9050a79400a0a723441f84de1d972cc17',
      OrderInvalidated: '0x875b6cb035bbd4ac6500fabc6d1e4ca5bdc58a3e2b424ccb5c24cdbebeb009a9',
      PreSignature: '0x01bf7c8b0ca55deecbea89d7e58295b7ffbf685fd0d96801034ba8c6ffe1c68d',
      Settlement: '0x40338ce1a7c49204f0099533b1e9a7ee0a3d261f84974ab7af36105b8c4e9db4',
    });
  });

  it('test-side order hashing gives the UID of the spec test vector', () => {
    const domainSeparator = '0x74e0b11bd18120612556bae4578cfd3a254d7e2495f543c569a92ff5794d9b09';
    const vector: TestOrder = {
      sellToken: '0x' + '01'.repeat(20),
      buyToken: '0x' + '02'.repeat(20),
      receiver: '0x' + '03'.repeat(20),
      sellAmount: 42_000000000000000000n,
      buyAmount: 13_370000000000000000n,
      validTo: 0xffffffff,
      appData: ZERO_APP_DATA,
      feeAmount: 1_000000000000000000n,
      kind: 'sell',
      partiallyFillable: false,
    };
    const typeHash = keccak256(toUtf8Bytes(TypedDataEncoder.from(ORDER_TYPES).encodeType('Order')));
    assert.equal(typeHash, '0xd5a25ba2e97094ad7d83dc28a6572da797d6b3e7fc6663bd93efb789fc17e489');
    const structHash = TypedDataEncoder.hashStruct('Order', ORDER_TYPES, { ...vector, sellTokenBalance: 'erc20', buyTokenBalance: 'erc20' });
    const digest = keccak256(concat(['0x1901', domainSeparator, structHash]));
    assert.equal(
      orderUid(digest, '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', vector.validTo),
      '0x0e45d31fd31b28c26031cdd81b35a8938b2ccca2cc425fcf440fd3bfed1eede970997970c51812dc3a010c7d01b50e0d17dc79c8ffffffff',
    );
  });

  it('ignores other topics and refuses a log that has a settlement topic but not its layout', () => {
    const base = { address: '0x' + '11'.repeat(20), blockNumber: '0x1', blockHash: '0x' + 'aa'.repeat(32), transactionHash: '0x' + 'bb'.repeat(32), transactionIndex: '0x0', logIndex: '0x0' };
    assert.equal(decodeSettlementLog({ ...base, topics: ['0x' + '22'.repeat(32)], data: '0x' }), null);
    assert.throws(() => decodeSettlementLog({ ...base, topics: [settlementTopics().Trade], data: '0x' }), /not a GPv2Settlement Trade event/);
  });

  describe('on anvil with the real GPv2Settlement', () => {
    let chain: TestChain;
    let dev: DevChain;
    let solver: TestSolver;
    let settlement: Contract;
    let TKA: string;
    let TKB: string;
    const domain = () => gpv2Domain(dev.chainId, dev.settlement);

    const trader = (): Promise<Wallet> => gasFundedWallet(chain.provider, chain);

    async function decodedLogs(receipt: TransactionReceipt): Promise<DecodedLog[]> {
      const logs = (await chain.rpc.call('eth_getLogs', [{ address: dev.settlement, blockHash: receipt.blockHash }])) as RawLog[];
      return logs.map(decodeSettlementLog).filter((l): l is DecodedLog => l !== null);
    }

    function order(partial: Partial<TestOrder> & Pick<TestOrder, 'sellToken' | 'buyToken' | 'sellAmount' | 'buyAmount'>): TestOrder {
      return {
        validTo: Math.floor(Date.now() / 1000) + 3600,
        appData: ZERO_APP_DATA,
        feeAmount: 0n,
        kind: 'sell',
        partiallyFillable: false,
        ...partial,
      };
    }

    before(async () => {
      chain = await startTestChain({ chainId: 1 });
      dev = await bootstrapDevChain(chain.rpc);
      solver = new TestSolver(chain.provider, dev);
      settlement = new Contract(dev.settlement, gpv2Artifact('GPv2Settlement').abi as InterfaceAbi, chain.provider);
      ({ TKA, TKB } = dev.tokens);
    });
    after(() => chain?.stop());

    it('settles two opposite orders (eip712 and ethsign) and decodes both Trade events', async () => {
      const alice = await trader();
      const bob = await trader();
      await fundTrader(TKA, alice, e18(101), dev.vaultRelayer);
      await fundTrader(TKB, bob, e18(101), dev.vaultRelayer);
      const sellA = order({ sellToken: TKA, buyToken: TKB, sellAmount: e18(100), buyAmount: e18(99), feeAmount: e18(1) });
      const sellB = order({ sellToken: TKB, buyToken: TKA, sellAmount: e18(100), buyAmount: e18(99), feeAmount: e18(1) });
      const uidA = orderUid(orderDigest(domain(), sellA), alice.address, sellA.validTo);
      const uidB = orderUid(orderDigest(domain(), sellB), bob.address, sellB.validTo);

      const receipt = await solver.settle(
        [
          { order: sellA, scheme: 'eip712', signature: await signOrder(alice, domain(), sellA, 'eip712') },
          { order: sellB, scheme: 'ethsign', signature: await signOrder(bob, domain(), sellB, 'ethsign') },
        ],
        { [TKA]: 1n, [TKB]: 1n },
      );

      const logs = await decodedLogs(receipt);
      assert.deepEqual(logs.map((l) => l.type), ['Trade', 'Trade', 'Settlement']);
      const position = { blockNumber: receipt.blockNumber, blockHash: receipt.blockHash.toLowerCase(), transactionHash: receipt.hash.toLowerCase(), transactionIndex: receipt.index };
      assert.deepEqual(logs[0], {
        ...position,
        logIndex: logs[0].logIndex,
        type: 'Trade',
        owner: alice.address.toLowerCase(),
        sellToken: TKA,
        buyToken: TKB,
        sellAmount: e18(101),
        buyAmount: e18(100),
        feeAmount: e18(1),
        orderUid: uidA,
      });
      assert.deepEqual(logs[1], {
        ...position,
        logIndex: logs[1].logIndex,
        type: 'Trade',
        owner: bob.address.toLowerCase(),
        sellToken: TKB,
        buyToken: TKA,
        sellAmount: e18(101),
        buyAmount: e18(100),
        feeAmount: e18(1),
        orderUid: uidB,
      });
      assert.deepEqual(logs[2], { ...position, logIndex: logs[2].logIndex, type: 'Settlement', solver: solver.wallet.address.toLowerCase() });
      assert.ok(logs[0].logIndex < logs[1].logIndex && logs[1].logIndex < logs[2].logIndex);
      assert.equal(new Set(logs.map(logKey)).size, 3);
      // The chain agrees: the tokens moved and the orders are filled.
      assert.equal(await testToken(TKB, chain.provider).balanceOf(alice.address), e18(100));
      assert.equal(await testToken(TKA, chain.provider).balanceOf(bob.address), e18(100));
      assert.equal(await settlement.filledAmount(uidA), e18(100));
    });

    it('half fills a partially fillable order with a pro rata fee', async () => {
      const carol = await trader();
      const dave = await trader();
      await fundTrader(TKA, carol, e18(102), dev.vaultRelayer);
      await fundTrader(TKB, dave, e18(50), dev.vaultRelayer);
      const partial = order({ sellToken: TKA, buyToken: TKB, sellAmount: e18(100), buyAmount: e18(100), feeAmount: e18(2), partiallyFillable: true });
      const counter = order({ sellToken: TKB, buyToken: TKA, sellAmount: e18(50), buyAmount: e18(50) });
      const uid = orderUid(orderDigest(domain(), partial), carol.address, partial.validTo);

      const receipt = await solver.settle(
        [
          { order: partial, scheme: 'eip712', signature: await signOrder(carol, domain(), partial, 'eip712'), executedAmount: e18(50) },
          { order: counter, scheme: 'eip712', signature: await signOrder(dave, domain(), counter, 'eip712') },
        ],
        { [TKA]: 1n, [TKB]: 1n },
      );

      const [trade] = await decodedLogs(receipt);
      assert.equal(trade.type, 'Trade');
      if (trade.type !== 'Trade') return;
      assert.equal(trade.orderUid, uid);
      assert.equal(trade.sellAmount, e18(51)); // 50 + half of the fee
      assert.equal(trade.feeAmount, e18(1));
      assert.equal(trade.buyAmount, e18(50));
      assert.equal(await settlement.filledAmount(uid), e18(50));
    });

    it('decodes OrderInvalidated from an owner invalidating an order, which then cannot settle', async () => {
      const erin = await trader();
      await fundTrader(TKA, erin, e18(10), dev.vaultRelayer);
      const o = order({ sellToken: TKA, buyToken: TKB, sellAmount: e18(10), buyAmount: e18(10) });
      const uid = orderUid(orderDigest(domain(), o), erin.address, o.validTo);
      const receipt = await invalidateOrder(dev.settlement, erin, uid);

      const logs = await decodedLogs(receipt);
      assert.equal(logs.length, 1);
      assert.deepEqual(
        { type: logs[0].type, owner: (logs[0] as { owner: string }).owner, orderUid: (logs[0] as { orderUid: string }).orderUid, tx: logs[0].transactionHash },
        { type: 'OrderInvalidated', owner: erin.address.toLowerCase(), orderUid: uid, tx: receipt.hash.toLowerCase() },
      );
      // invalidateOrder sets the filled amount to uint256 max: adding any execution to it overflows.
      assert.equal(await settlement.filledAmount(uid), MaxUint256);
      await assert.rejects(
        solver.settle([{ order: o, scheme: 'eip712', signature: await signOrder(erin, domain(), o, 'eip712') }], { [TKA]: 1n, [TKB]: 1n }),
        /SafeMath: addition overflow/,
      );
    });

    it('decodes PreSignature true and false; a presign order settles only while presigned', async () => {
      const frank = await trader();
      const gina = await trader();
      await fundTrader(TKA, frank, e18(20), dev.vaultRelayer);
      await fundTrader(TKB, gina, e18(10), dev.vaultRelayer);
      const presigned = order({ sellToken: TKA, buyToken: TKB, sellAmount: e18(10), buyAmount: e18(10) });
      const uid = orderUid(orderDigest(domain(), presigned), frank.address, presigned.validTo);
      const counter = order({ sellToken: TKB, buyToken: TKA, sellAmount: e18(10), buyAmount: e18(10) });
      const trades = async () => [
        { order: presigned, scheme: 'presign' as const, signature: tradeSignature.presign(frank.address) },
        { order: counter, scheme: 'eip712' as const, signature: await signOrder(gina, domain(), counter, 'eip712') },
      ];

      await assert.rejects(solver.settle(await trades(), { [TKA]: 1n, [TKB]: 1n }), /GPv2: order not presigned/);

      const signed = await decodedLogs(await setPreSignature(dev.settlement, frank, uid, true));
      assert.deepEqual(
        signed.map((l) => l.type === 'PreSignature' && { owner: l.owner, orderUid: l.orderUid, signed: l.signed }),
        [{ owner: frank.address.toLowerCase(), orderUid: uid, signed: true }],
      );
      const revoked = await decodedLogs(await setPreSignature(dev.settlement, frank, uid, false));
      assert.deepEqual(
        revoked.map((l) => l.type === 'PreSignature' && { owner: l.owner, orderUid: l.orderUid, signed: l.signed }),
        [{ owner: frank.address.toLowerCase(), orderUid: uid, signed: false }],
      );
      await assert.rejects(solver.settle(await trades(), { [TKA]: 1n, [TKB]: 1n }), /GPv2: order not presigned/);

      await setPreSignature(dev.settlement, frank, uid, true);
      const settled = await decodedLogs(await solver.settle(await trades(), { [TKA]: 1n, [TKB]: 1n }));
      assert.deepEqual(settled.filter((l) => l.type === 'Trade').map((l) => (l as { orderUid: string }).orderUid)[0], uid);
    });

    it('checks and settles an eip1271 order of a contract owner only when the contract approves it', async () => {
      const owner = await trader();
      const counterparty = await trader();
      const wallet = await deployEip1271Wallet(owner);
      await mined(testToken(TKA, owner).mint(wallet, e18(30)));
      await mined(eip1271Wallet(wallet, owner).approveToken(TKA, dev.vaultRelayer, MaxUint256));
      await fundTrader(TKB, counterparty, e18(30), dev.vaultRelayer);

      const settleWith = async (o: TestOrder, walletSignature: string) => {
        const counter = order({ sellToken: TKB, buyToken: TKA, sellAmount: o.sellAmount, buyAmount: o.buyAmount, validTo: o.validTo + 1 });
        return solver.settle(
          [
            { order: o, scheme: 'eip1271', signature: tradeSignature.eip1271(wallet, walletSignature) },
            { order: counter, scheme: 'eip712', signature: await signOrder(counterparty, domain(), counter, 'eip712') },
          ],
          { [TKA]: 1n, [TKB]: 1n },
        );
      };

      // Neither approved nor signed by the owner: rejected by the contract.
      const rejected = order({ sellToken: TKA, buyToken: TKB, sellAmount: e18(10), buyAmount: e18(10) });
      const stranger = Wallet.createRandom();
      const strangerSignature = stranger.signingKey.sign(orderDigest(domain(), rejected)).serialized;
      assert.equal(await isValidEip1271Signature(chain.rpc, wallet, orderDigest(domain(), rejected), strangerSignature), false);
      await assert.rejects(settleWith(rejected, strangerSignature), /GPv2: invalid eip1271 signature/);

      // Approved by the owner through approveHash, with an empty signature.
      const approved = order({ sellToken: TKA, buyToken: TKB, sellAmount: e18(10), buyAmount: e18(10), validTo: rejected.validTo + 10 });
      const digest = orderDigest(domain(), approved);
      assert.equal(await isValidEip1271Signature(chain.rpc, wallet, digest, '0x'), false);
      await mined(eip1271Wallet(wallet, owner).approveHash(digest, true));
      assert.equal(await isValidEip1271Signature(chain.rpc, wallet, digest, '0x'), true);
      // Owners that cannot answer: an EOA (no code) and a contract without isValidSignature (reverts).
      assert.equal(await isValidEip1271Signature(chain.rpc, owner.address, digest, '0x'), false);
      assert.equal(await isValidEip1271Signature(chain.rpc, TKA, digest, '0x'), false);
      // A node that cannot answer is not a verdict on the signature.
      await assert.rejects(isValidEip1271Signature(chain.rpc, wallet, digest, '0x', 10_000_000), ChainError);
      const [trade] = await decodedLogs(await settleWith(approved, '0x'));
      assert.equal(trade.type === 'Trade' && trade.owner, wallet);
      assert.equal(trade.type === 'Trade' && trade.orderUid, orderUid(digest, wallet, approved.validTo));

      // Signed by the owner's key.
      const signed = order({ sellToken: TKA, buyToken: TKB, sellAmount: e18(10), buyAmount: e18(10), validTo: rejected.validTo + 20 });
      const ownerSignature = owner.signingKey.sign(orderDigest(domain(), signed)).serialized;
      assert.equal(await isValidEip1271Signature(chain.rpc, wallet, orderDigest(domain(), signed), ownerSignature), true);
      const [signedTrade] = await decodedLogs(await settleWith(signed, ownerSignature));
      assert.equal(signedTrade.type === 'Trade' && signedTrade.owner, wallet);
    });
  });
});
