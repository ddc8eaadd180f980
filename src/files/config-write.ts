import { dirname, resolve } from 'node:path';
import { writeFileAtomic } from './exclusive-file.js';
import { nodeFs, type FileSystem } from './fs.js';
import { writeFailure } from './write-error.js';

/** Writing the config file (`tenders config set`, `unset`, `edit`); reading it is config-file.ts, on every start. */

/**
 * Replaces the config file with `text` atomically. Its directory is made
 * private (700) when made; a new file is 600, and a file that was there keeps
 * its mode (never loosened, nor tightened behind the user's back).
 */
export async function writeConfigText(file: string, text: string, fs: FileSystem = nodeFs): Promise<void> {
  const target = await linkTarget(file, fs);
  await makeConfigDir(target, fs);
  await writeFileAtomic(target, text, { fs, sync: true, mode: 0o600 });
}

/** A config file that is a symbolic link (kept in a dotfiles repository) is written where it leads, and stays a link. */
async function linkTarget(file: string, fs: FileSystem): Promise<string> {
  const stats = await fs.lstat(file).catch(() => undefined);
  return stats?.isSymbolicLink() ? resolve(dirname(file), await fs.readlink(file)) : file;
}

/** The config file's directory, made private when it has to be made. */
async function makeConfigDir(file: string, fs: FileSystem = nodeFs): Promise<void> {
  try {
    await fs.mkdir(dirname(file), { recursive: true, mode: 0o700 });
  } catch (err) {
    throw writeFailure(dirname(file), err);
  }
}
