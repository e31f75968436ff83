/** What ffprobe reads of a video: its codec, duration and the frames it decodes (every one counted). */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export interface ProbedVideo {
  codec: string;
  width: number;
  height: number;
  durationSeconds: number;
  frames: number;
}

export async function probeVideo(path: string): Promise<ProbedVideo> {
  const { stdout } = await promisify(execFile)('/usr/bin/ffprobe', [
    ...['-v', 'error', '-count_frames', '-select_streams', 'v:0'],
    ...[
      '-show_entries',
      'format=duration:stream=codec_name,width,height,nb_read_frames',
      '-of',
      'json',
      path,
    ],
  ]);
  const probed = JSON.parse(stdout) as {
    streams: { codec_name: string; width: number; height: number; nb_read_frames: string }[];
    format: { duration: string };
  };
  const [stream] = probed.streams;
  if (!stream) throw new Error(`${path} has no video stream`);
  return {
    codec: stream.codec_name,
    width: stream.width,
    height: stream.height,
    durationSeconds: Number(probed.format.duration),
    frames: Number(stream.nb_read_frames),
  };
}
