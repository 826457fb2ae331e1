/**
 * Compiles the project's own Solidity contracts (contracts/*.sol: test tokens, EIP-1271 wallets, a pool) with
 * the npm `solc` package and writes one artifact per contract to dist/contracts/<Name>.json. It is the last
 * step of `npm run build`. The GPv2 contracts are not compiled here: their artifacts ship in
 * @cowprotocol/contracts.
 *
 * The bytecode feeds CREATE2 addresses on the dev chain, so the output must only change when a source does:
 * fixed compiler (the installed solc), fixed settings. When nothing changed since the last run, solc (a large
 * WebAssembly module) is not even loaded.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoPath } from '../shared/paths.js';
import { localArtifactsDir, type LocalArtifact } from '../contracts/artifacts.js';

const require = createRequire(import.meta.url);

const SOURCES_DIR = repoPath('contracts');

const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  // Cancun runs on every current chain and on anvil; newer defaults would tie the artifacts to one hardfork.
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
};

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >;
}

function readSources(): Record<string, { content: string }> {
  const files = readdirSync(SOURCES_DIR).filter((f) => f.endsWith('.sol')).sort();
  return Object.fromEntries(files.map((f) => [f, { content: readFileSync(join(SOURCES_DIR, f), 'utf8') }]));
}

function inputHash(sources: Record<string, { content: string }>, compiler: string): string {
  return createHash('sha256').update(JSON.stringify({ sources, compiler, SETTINGS })).digest('hex');
}

/** Each contracts/<Name>.sol defines the contract <Name> (plus, at most, interfaces it calls). */
function upToDate(sources: Record<string, { content: string }>, hash: string): boolean {
  return Object.keys(sources).every((file) => {
    const path = join(localArtifactsDir(), file.replace(/\.sol$/, '.json'));
    if (!existsSync(path)) return false;
    return (JSON.parse(readFileSync(path, 'utf8')) as LocalArtifact).inputHash === hash;
  });
}

export function compileContracts(): { compiled: string[]; skipped: boolean } {
  const sources = readSources();
  // The version is read from package.json so that an unchanged tree is recognised without loading solc.
  const compilerVersion = (require('solc/package.json') as { version: string }).version;
  const hash = inputHash(sources, compilerVersion);
  if (upToDate(sources, hash)) return { compiled: Object.keys(sources).map((f) => f.replace(/\.sol$/, '')), skipped: true };

  const solc = require('solc') as { compile(input: string): string; version(): string };
  const output = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources, settings: SETTINGS }))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));

  mkdirSync(localArtifactsDir(), { recursive: true });
  const compiled: string[] = [];
  for (const [sourceName, contracts] of Object.entries(output.contracts ?? {})) {
    for (const [contractName, contract] of Object.entries(contracts)) {
      if (contract.evm.bytecode.object === '') continue; // an interface, nothing to deploy
      const artifact: LocalArtifact = {
        contractName,
        sourceName: `contracts/${sourceName}`,
        compiler: `solc ${solc.version()}`,
        inputHash: hash,
        abi: contract.abi,
        bytecode: `0x${contract.evm.bytecode.object}`,
        deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
      };
      writeFileSync(join(localArtifactsDir(), `${contractName}.json`), JSON.stringify(artifact, null, 2) + '\n');
      compiled.push(contractName);
    }
  }
  return { compiled, skipped: false };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const { compiled, skipped } = compileContracts();
    console.log(`${skipped ? 'contracts up to date' : 'compiled'}: ${compiled.join(', ')}`);
  } catch (err) {
    console.error(`contract compilation failed:\n${(err as Error).message}`);
    process.exit(1);
  }
}
