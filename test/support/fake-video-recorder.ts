/**
 * A stand-in for the `video` container of an ecs task (docker-selenium's selenium/video image, as
 * infra/browser-fleet.ts adds it with recorder-environment.ts's environment), run by the fake ECS API beside
 * the task's browser container. What it reproduces of the real recorder (selenium/video watching a standalone
 * node, SE_VIDEO_RECORD_STANDALONE): it reads the same environment (SE_NODE_PORT, SE_VIDEO_FILE_NAME, SE_VIDEO_FILE_NAME_SUFFIX,
 * SE_VIDEO_UPLOAD_ENABLED, SE_UPLOAD_DESTINATION_PREFIX, SE_FRAME_RATE, the RCLONE_CONFIG_S3_* remote), polls
 * the browser node's /status on the task's "localhost" (the task's loopback IP) for a session whose
 * capabilities carry se:recordVideo true, records the X display with ffmpeg x11grab into an H.264 MP4 while
 * that session runs, and when the session is gone or the container is told to stop (SIGTERM), ends ffmpeg
 * with SIGINT (so that it writes the MP4's index) and uploads `{se:videoName}.mp4` (the name
 * with SE_VIDEO_FILE_NAME=auto, no suffix) under the destination prefix with a signed PutObject, as rclone's
 * S3 remote does. What it does not: it is in-process code driving an ffmpeg child, not a container; it is
 * given the display's number (DISPLAY_NUM) by the fake, which reaches it by its Unix socket, where the real
 * one connects to DISPLAY_CONTAINER_NAME:DISPLAY_NUM (99 by default) over the task's network; no rclone (the
 * SDK's PutObject stands in for it), no retries of a failed upload, one session per task.
 * A node whose /status does not answer is taken as saying nothing (the recording goes on until the stop).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { LAUNCHED_BY_ENV } from '../../functions/pools/local/chromedriver-launcher';
import { killGroup } from './loopback-chromedrivers';
import { SCREEN } from './loopback-vnc-browsers';

/** Where the environment is silent: a look a second (SE_VIDEO_POLL_INTERVAL), 15 frames a second (SE_FRAME_RATE). */
const POLL_MS = 1000;
const FRAME_RATE = '15';

/** A session as the node's /status shows it in a slot. */
interface SlotSession {
  sessionId: string;
  capabilities?: Record<string, unknown>;
}

interface Recording {
  sessionId: string;
  ffmpeg: ChildProcess;
  file: string;
  name: string;
  exited: Promise<void>;
  /** Set when the recorder tells ffmpeg to finish. */
  finishing: boolean;
  /** Set when ffmpeg's x11grab input failed before that: the display went first. */
  lostDisplay: boolean;
}

/**
 * One upload: where it went, its size, and whether the display went before the recorder ended ffmpeg (its
 * x11grab input failed: ffmpeg then ends the file where the display went, and still writes its index).
 */
export interface RecorderUpload {
  bucket: string;
  key: string;
  bytes: number;
  lostDisplay: boolean;
}

/** What ffmpeg's x11grab prints when its X display goes away under it (xcb's connection error). */
const DISPLAY_LOST = /x11grab.*(Failed|error)|Generic error in an external library/i;

export interface FakeVideoRecorderOptions {
  /** The container's environment, as its definition and the fake give it. */
  environment: Record<string, string>;
  /** The task's own address: its containers' "localhost". */
  ip: string;
  /** Each line it and its ffmpeg print (its log). */
  onLine?: (line: string) => void;
}

export class FakeVideoRecorder {
  /** What it uploaded, in order (bucket and key), for tests to assert on. */
  readonly uploads: RecorderUpload[] = [];
  private readonly dir = mkdtempSync(join(tmpdir(), 'gridgate-fake-recorder-'));
  private readonly env: Record<string, string>;
  private readonly log: (line: string) => void;
  private recording?: Recording;
  private timer?: NodeJS.Timeout;
  private stopping = false;
  private stopped?: Promise<'exited' | 'killed'>;
  private polling: Promise<void> = Promise.resolve();
  private readonly uploadAbort = new AbortController();

  constructor(private readonly options: FakeVideoRecorderOptions) {
    this.env = options.environment;
    this.log = options.onLine ?? (() => {});
  }

  /** Starts watching the node's /status. */
  start(): void {
    this.schedule();
  }

  /**
   * The container's stop: SIGTERM, then SIGKILL after `stopTimeoutMs` (API_ContainerDefinition, stopTimeout:
   * "Time duration (in seconds) to wait before the container is forcefully killed if it doesn't exit normally
   * on its own"). SIGTERM finalises and uploads the recording in progress; SIGKILL loses it.
   */
  stop(stopTimeoutMs: number): Promise<'exited' | 'killed'> {
    this.stopped ??= this.stopOnce(stopTimeoutMs);
    return this.stopped;
  }

  private async stopOnce(stopTimeoutMs: number): Promise<'exited' | 'killed'> {
    this.stopping = true;
    clearTimeout(this.timer);
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<'killed'>((resolve) => {
      timer = setTimeout(() => resolve('killed'), stopTimeoutMs);
    });
    const exited = this.polling
      .then(() => this.finish())
      .catch((error: Error) => this.log(`recorder: ${error.message}`))
      .then(() => 'exited' as const);
    const how = await Promise.race([exited, killed]);
    clearTimeout(timer);
    if (how === 'killed') {
      this.uploadAbort.abort();
      if (this.recording?.ffmpeg.pid !== undefined) killGroup(this.recording.ffmpeg.pid, 'SIGKILL');
      await this.recording?.exited;
      this.log('the recorder was killed (SIGKILL) after its stop timeout');
    }
    rmSync(this.dir, { recursive: true, force: true });
    return how;
  }

  private schedule(): void {
    if (this.stopping) return;
    const interval = Number(this.env.SE_VIDEO_POLL_INTERVAL ?? POLL_MS / 1000) * 1000;
    this.timer = setTimeout(() => {
      // The next look is planned once this one is over, whatever it met: no overlap, no unhandled rejection.
      this.polling = this.poll()
        .catch((error: Error) => this.log(`recorder: ${error.message}`))
        .then(() => this.schedule());
    }, interval);
  }

  /** One look at the node: start recording a session that asked, or end the recording whose session is gone. */
  private async poll(): Promise<void> {
    const session = await this.currentSession();
    // A node that does not answer says nothing of its session: only the container's stop ends the recording.
    if (this.stopping || session === 'unanswered') return;
    if (this.recording && session?.sessionId !== this.recording.sessionId) await this.finish();
    if (!this.recording && session && session.capabilities?.['se:recordVideo'] === true) this.record(session);
  }

  /** The session in the node's slot, from /status (a standalone's `nodes`, a node's `node`), or none. */
  private async currentSession(): Promise<SlotSession | undefined | 'unanswered'> {
    const url = `http://${this.options.ip}:${this.env.SE_NODE_PORT}/status`;
    const answer = await fetch(url, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
    if (!answer?.ok) return 'unanswered';
    const { value } = (await answer.json()) as {
      value?: { node?: NodeStatus; nodes?: NodeStatus[] };
    };
    const nodes = value?.nodes ?? (value?.node ? [value.node] : []);
    return nodes.flatMap((node) => node.slots ?? []).find((slot) => slot.session)?.session ?? undefined;
  }

  /** ffmpeg on the display, as video.sh runs it: x11grab at SE_FRAME_RATE into H.264 (yuv420p, playable anywhere). */
  private record(session: SlotSession): void {
    const name = this.fileName(session);
    const file = join(this.dir, `${name}.mp4`);
    const display = `:${this.env.DISPLAY_NUM}`;
    const size = `${SCREEN.width}x${SCREEN.height}`;
    const ffmpeg = spawn(
      'ffmpeg',
      [
        ...['-hide_banner', '-loglevel', 'warning', '-y', '-f', 'x11grab', '-video_size', size],
        ...['-framerate', this.env.SE_FRAME_RATE ?? FRAME_RATE, '-i', display],
        ...['-codec:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', file],
      ],
      {
        detached: true,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, [LAUNCHED_BY_ENV]: String(process.pid) },
      },
    );
    const recording: Recording = {
      sessionId: session.sessionId,
      ffmpeg,
      file,
      name,
      exited: Promise.resolve(),
      finishing: false,
      lostDisplay: false,
    };
    createInterface({ input: ffmpeg.stderr as Readable }).on('line', (line) => {
      if (!recording.finishing && DISPLAY_LOST.test(line)) recording.lostDisplay = true;
      this.log(`ffmpeg: ${line}`);
    });
    recording.exited = new Promise<void>((resolve) => {
      const ended = (why: string) => {
        this.log(`ffmpeg ${why}${recording.lostDisplay ? ', its display gone first' : ''}`);
        resolve();
      };
      ffmpeg.once('exit', (code, signal) => ended(`exited (${signal ?? `code ${code}`})`));
      ffmpeg.once('error', (error) => ended(`failed: ${error.message}`));
    });
    this.log(`recording session ${session.sessionId} as ${name}.mp4 on ${display}`);
    this.recording = recording;
  }

  /** SE_VIDEO_FILE_NAME=auto: the session's se:videoName, else its ID; a suffix unless it is turned off. */
  private fileName(session: SlotSession): string {
    const asked = this.env.SE_VIDEO_FILE_NAME ?? 'auto';
    const base =
      asked === 'auto' ? String(session.capabilities?.['se:videoName'] ?? session.sessionId) : asked;
    const clean = base.replace(/[^A-Za-z0-9._-]/g, '_');
    return this.env.SE_VIDEO_FILE_NAME_SUFFIX === 'false' ? clean : `${clean}_${session.sessionId}`;
  }

  /** Ends ffmpeg with SIGINT (it then writes the MP4's index) and uploads the file. */
  private async finish(): Promise<void> {
    const recording = this.recording;
    if (!recording) return;
    // Xvfb removes its socket as it ends: gone now, the display went before the recorder could finish.
    if (!existsSync(`/tmp/.X11-unix/X${this.env.DISPLAY_NUM}`)) recording.lostDisplay = true;
    recording.finishing = true;
    if (recording.ffmpeg.pid !== undefined) killGroup(recording.ffmpeg.pid, 'SIGINT');
    await recording.exited;
    this.recording = undefined;
    if (this.env.SE_VIDEO_UPLOAD_ENABLED === 'true') await this.upload(recording);
  }

  /** A signed PutObject of the file to SE_UPLOAD_DESTINATION_PREFIX (s3://bucket/prefix), as rclone's S3 remote sends. */
  private async upload(recording: Recording): Promise<void> {
    const destination = /^s3:\/\/([^/]+)\/?(.*)$/.exec(this.env.SE_UPLOAD_DESTINATION_PREFIX ?? '');
    if (!destination) throw new Error(`not an s3:// destination: ${this.env.SE_UPLOAD_DESTINATION_PREFIX}`);
    const [, bucket = '', prefix = ''] = destination;
    const key = `${prefix ? `${prefix}/` : ''}${recording.name}.mp4`;
    const s3 = new S3Client({
      region: this.env.RCLONE_CONFIG_S3_REGION ?? 'us-east-1',
      endpoint: this.env.RCLONE_CONFIG_S3_ENDPOINT,
      forcePathStyle: true,
      credentials: {
        accessKeyId: this.env.AWS_ACCESS_KEY_ID ?? '',
        secretAccessKey: this.env.AWS_SECRET_ACCESS_KEY ?? '',
      },
    });
    let body: Buffer;
    try {
      body = readFileSync(recording.file);
    } catch {
      this.log(`no file ${recording.file} to upload`);
      return;
    }
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: 'video/mp4' }), {
      abortSignal: this.uploadAbort.signal,
    });
    this.uploads.push({ bucket, key, bytes: body.length, lostDisplay: recording.lostDisplay });
    this.log(`uploaded s3://${bucket}/${key} (${body.length} bytes)`);
  }
}

interface NodeStatus {
  slots?: { session?: SlotSession | null }[];
}
