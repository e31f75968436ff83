/** Makes sure ffmpeg exists before the first video is recorded, installing Debian's package when it can (as Chromium is). */
import type { Logger } from '../../core/ports';
import { installMissing } from './debian-install';

export const FFMPEG = '/usr/bin/ffmpeg';

const PACKAGE = {
  what: 'ffmpeg (for session videos)',
  packages: ['ffmpeg'],
  binaries: [FFMPEG],
  otherwise: 'Install ffmpeg with your package manager, at /usr/bin/ffmpeg.',
};

/** Installs ffmpeg once per process, at the first video asked for; later calls share that one try. */
export function ffmpegInstaller(logger: Logger): () => Promise<string> {
  let installed: Promise<string> | undefined;
  return () => {
    installed ??= installMissing(PACKAGE, logger).then(() => FFMPEG);
    // A failed install is tried again at the next video (the machine may have changed meanwhile).
    installed.catch(() => {
      installed = undefined;
    });
    return installed;
  };
}
