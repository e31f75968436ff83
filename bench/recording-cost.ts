/**
 * What recording a local session's video costs (bench/README.md): one session with `se:recordVideo` and one
 * without, in turns, each showing a page that changes every animation frame (the screencast's worst case)
 * for the same window. Measured per session: CPU of ffmpeg, of the session's Chromium, and of gridgate (the
 * recorded run against the plain one, in cores), the video's frames per second as ffprobe reads them, and
 * its size per minute.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { GridgateServer } from './gridgate-server';
import { commandLine, cpuSeconds, descendants } from './process-tree';
import type { WebDriverClient } from './webdriver-client';

const ANIMATED =
  'data:text/html,<body style="font:48px sans-serif"><p id=t></p><script>' +
  '(function f(){t.textContent=performance.now().toFixed(1);requestAnimationFrame(f)})()</script>';

export interface RecordingSample {
  recorded: boolean;
  wallSeconds: number;
  /** CPU seconds used during the window. */
  gridgate: number;
  chromium: number;
  ffmpeg: number;
  video?: { frames: number; durationSeconds: number; bytes: number };
}

export interface RecordingCost {
  samples: RecordingSample[];
  /** Cores a recorded session uses beyond a plain one: ffmpeg, plus Chromium's and gridgate's extra. */
  extraCores: number;
  ffmpegCores: number;
  chromiumExtraCores: number;
  gridgateExtraCores: number;
  fps: number;
  megabytesPerMinute: number;
}

export async function measureRecordingCost(
  client: WebDriverClient,
  grid: GridgateServer,
  options: { rounds: number; windowMs: number },
): Promise<RecordingCost> {
  const samples: RecordingSample[] = [];
  for (let round = 0; round < options.rounds; round++) {
    for (const recorded of [false, true])
      samples.push(await sample(client, grid, recorded, options.windowMs));
  }
  const mean = (pick: (s: RecordingSample) => number, recorded: boolean) => {
    const chosen = samples.filter((s) => s.recorded === recorded);
    return chosen.reduce((sum, s) => sum + pick(s) / s.wallSeconds, 0) / chosen.length;
  };
  const videos = samples.flatMap((s) => (s.video ? [s.video] : []));
  const seconds = videos.reduce((sum, v) => sum + v.durationSeconds, 0);
  const ffmpegCores = mean((s) => s.ffmpeg, true);
  const chromiumExtraCores = mean((s) => s.chromium, true) - mean((s) => s.chromium, false);
  const gridgateExtraCores = mean((s) => s.gridgate, true) - mean((s) => s.gridgate, false);
  return {
    samples,
    extraCores: ffmpegCores + chromiumExtraCores + gridgateExtraCores,
    ffmpegCores,
    chromiumExtraCores,
    gridgateExtraCores,
    fps: videos.reduce((sum, v) => sum + v.frames, 0) / seconds,
    megabytesPerMinute: (videos.reduce((sum, v) => sum + v.bytes, 0) / seconds) * (60 / 1e6),
  };
}

async function sample(
  client: WebDriverClient,
  grid: GridgateServer,
  recorded: boolean,
  windowMs: number,
): Promise<RecordingSample> {
  const id = await client.newSession(grid.origin, { browserName: 'chrome', 'se:recordVideo': recorded });
  try {
    await client.send(grid.origin, 'POST', `/session/${id}/url`, { url: ANIMATED });
    const before = await usage(grid);
    const started = performance.now();
    // A measuring window, not a wait for a condition: the cost is per second of recording.
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const after = await usage(grid);
    const wallSeconds = (performance.now() - started) / 1000;
    await client.deleteSession(grid.origin, id);
    return {
      recorded,
      wallSeconds,
      gridgate: after.gridgate - before.gridgate,
      chromium: after.chromium - before.chromium,
      ffmpeg: after.ffmpeg - before.ffmpeg,
      ...(recorded ? { video: await probe(grid.origin, id) } : {}),
    };
  } catch (error) {
    await client.deleteSession(grid.origin, id).catch(() => undefined);
    throw error;
  }
}

/** CPU seconds so far of gridgate itself, of its Chromium processes, and of its ffmpeg. */
async function usage(grid: GridgateServer) {
  const processes = descendants(grid.pid).map((pid) => ({ pid, program: commandLine(pid)[0] ?? '' }));
  const sum = (match: (program: string) => boolean) =>
    processes.filter((p) => match(p.program)).reduce((total, p) => total + cpuSeconds(p.pid), 0);
  return {
    gridgate: (await grid.cpuMicros()) / 1e6,
    chromium: sum((program) => program.includes('chrom') && !program.endsWith('chromedriver')),
    ffmpeg: sum((program) => program.endsWith('ffmpeg')),
  };
}

async function probe(origin: string, id: string) {
  const answer = await fetch(`${origin}/video/${id}.mp4`);
  if (answer.status !== 200) throw new Error(`the recorded session's video answered ${answer.status}`);
  const bytes = Buffer.from(await answer.arrayBuffer());
  const directory = await mkdtemp(join(tmpdir(), 'gridgate-bench-video-'));
  try {
    const path = join(directory, 'video.mp4');
    await writeFile(path, bytes);
    const { stdout } = await promisify(execFile)('/usr/bin/ffprobe', [
      ...['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-of', 'json'],
      ...['-show_entries', 'format=duration:stream=nb_read_frames', path],
    ]);
    const probed = JSON.parse(stdout) as {
      streams: { nb_read_frames: string }[];
      format: { duration: string };
    };
    return {
      frames: Number(probed.streams[0]?.nb_read_frames),
      durationSeconds: Number(probed.format.duration),
      bytes: bytes.length,
    };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

export function formatRecordingCost(cost: RecordingCost): string {
  const cores = (n: number) => `${n.toFixed(3)} cores`;
  return [
    'Recording a local session (se:recordVideo), per session, against a plain session in the same run:',
    `  extra CPU in all     ${cores(cost.extraCores)}`,
    `    ffmpeg             ${cores(cost.ffmpegCores)}`,
    `    Chromium (extra)   ${cores(cost.chromiumExtraCores)}`,
    `    gridgate (extra)   ${cores(cost.gridgateExtraCores)}`,
    `  video frame rate     ${cost.fps.toFixed(1)} frames/s (as ffprobe reads it)`,
    `  video size           ${cost.megabytesPerMinute.toFixed(2)} MB per minute (a page changing every frame)`,
  ].join('\n');
}
