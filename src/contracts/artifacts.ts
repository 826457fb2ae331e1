/**
 * Compiled contracts (ABI + creation bytecode) the service deploys or talks to:
 * - the GPv2 contracts, from the artifacts shipped in the npm package @cowprotocol/contracts (Hardhat's
 *   `hh-sol-artifact-1` format, no library links);
 * - the project's own test contracts (contracts/*.sol), compiled into dist/contracts by `npm run build`;
 * - CoW Protocol's mainnet deployments as the same package records them (`deployments/mainnet/*.json`: the
 *   exact creation code and constructor arguments that were sent), so a dev chain can repeat them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoPath } from '../shared/paths.js';

const require = createRequire(import.meta.url);

export interface Artifact {
  contractName: string;
  abi: unknown[];
  /** Creation code, 0x-hex, without constructor arguments. */
  bytecode: string;
  deployedBytecode: string;
}

/** What src/cli/compile-contracts.ts writes for each contract. */
export interface LocalArtifact extends Artifact {
  sourceName: string;
  compiler: string;
  /** Hash of sources, compiler and settings: an unchanged tree is not compiled again. */
  inputHash: string;
}

export type Gpv2ContractName =
  | 'GPv2Settlement'
  | 'GPv2AllowListAuthentication'
  | 'GPv2VaultRelayer'
  | 'IERC20'
  | 'EIP1271Verifier';
export type Gpv2MainnetDeploymentName =
  | 'GPv2AllowListAuthentication_Implementation'
  | 'GPv2AllowListAuthentication_Proxy'
  | 'GPv2Settlement';
export type LocalContractName = 'TestERC20' | 'TestEip1271Wallet' | 'TestUniswapV2Pair' | 'TestFaultyToken';

/** Where `npm run build` writes the artifacts of contracts/ (src/cli/compile-contracts.ts). */
export function localArtifactsDir(): string {
  return repoPath('dist', 'contracts');
}

const cache = new Map<string, Artifact>();

function checked(artifact: Artifact, where: string): Artifact {
  if (!Array.isArray(artifact.abi) || !/^0x([0-9a-fA-F]{2})*$/.test(artifact.bytecode)) {
    throw new Error(`${where} is not a compiled-contract artifact (abi + bytecode)`);
  }
  return artifact;
}

export function gpv2Artifact(name: Gpv2ContractName): Artifact {
  let artifact = cache.get(name);
  if (!artifact) {
    const path = require.resolve(`@cowprotocol/contracts/lib/contracts/${name}.json`);
    const raw = JSON.parse(readFileSync(path, 'utf8')) as Artifact & { linkReferences?: object };
    if (raw.linkReferences && Object.keys(raw.linkReferences).length > 0) {
      throw new Error(`${path} needs library links, which this loader does not do`);
    }
    artifact = checked(raw, path);
    cache.set(name, artifact);
  }
  return artifact;
}

export function localArtifact(name: LocalContractName): Artifact {
  let artifact = cache.get(name);
  if (!artifact) {
    const path = join(localArtifactsDir(), `${name}.json`);
    if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` to compile contracts/`);
    artifact = checked(JSON.parse(readFileSync(path, 'utf8')) as Artifact, path);
    cache.set(name, artifact);
  }
  return artifact;
}

/** One contract as hardhat-deploy recorded its mainnet deployment. */
export interface Gpv2MainnetDeployment extends Pick<Artifact, 'abi' | 'bytecode' | 'deployedBytecode'> {
  /** Where it is on mainnet (checksummed). */
  address: string;
  /** The constructor arguments it was deployed with. */
  args: unknown[];
}

const deployments = new Map<string, Gpv2MainnetDeployment>();

export function gpv2MainnetDeployment(name: Gpv2MainnetDeploymentName): Gpv2MainnetDeployment {
  let deployment = deployments.get(name);
  if (!deployment) {
    const path = require.resolve(`@cowprotocol/contracts/deployments/mainnet/${name}.json`);
    const raw = JSON.parse(readFileSync(path, 'utf8')) as Partial<Gpv2MainnetDeployment>;
    if (typeof raw.address !== 'string' || !Array.isArray(raw.args)) throw new Error(`${path} is not a deployment record (address + args)`);
    checked({ contractName: name, abi: raw.abi ?? [], bytecode: raw.bytecode ?? '', deployedBytecode: raw.deployedBytecode ?? '' }, path);
    deployment = { address: raw.address, args: raw.args, abi: raw.abi!, bytecode: raw.bytecode!, deployedBytecode: raw.deployedBytecode ?? '' };
    deployments.set(name, deployment);
  }
  return deployment;
}
