/**
 * Paths of the foundry binaries shipped by the npm packages @foundry-rs/anvil and @foundry-rs/cast: each
 * carries the binary in a per-platform optional dependency (@foundry-rs/<tool>-<os>-<arch>).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

const ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };

export function foundryBinary(tool: 'anvil' | 'cast'): string {
  const arch = ARCH[process.arch];
  if (!arch) throw new Error(`no ${tool} binary for ${process.platform}/${process.arch}`);
  const pkg = `@foundry-rs/${tool}-${process.platform}-${arch}/package.json`;
  return join(dirname(require.resolve(pkg)), 'bin', process.platform === 'win32' ? `${tool}.exe` : tool);
}
