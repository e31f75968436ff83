/**
 * What every pool kind's config has (weight, region, colour, capacity, recording), a browser container's ports,
 * and the image of the video recorder cloud pools (ecs, eks) run beside their browsers.
 */
// A namespace import lets bundlers keep only what is used; `{ z }` keeps all of zod, every locale too.
import * as z from 'zod';
import { color, headerName } from './config-values';

export const poolCommon = {
  weight: z.number().positive().default(1).meta({ description: 'Relative share of new sessions.' }),
  region: z.string().optional().meta({ description: 'Region label; retries move to another region.' }),
  color: color.optional().meta({ description: 'Environment colour this pool serves.' }),
  colorHeader: z
    .union([z.boolean(), headerName], { error: 'must be true, false or an HTTP header name' })
    .optional()
    .meta({
      description:
        "Make the browser send the session's colour on its own requests: true uses colors.header, a string names another header (Chromium only).",
    }),
  maxSessions: z.number().int().positive().default(4).meta({ description: 'Sessions at once in this pool.' }),
  video: z.boolean().optional().meta({
    description:
      "Record a video of every session of this pool (over recording.video); a client's explicit false still wins.",
  }),
  log: z.boolean().optional().meta({
    description:
      "Keep the browser driver's log of every session of this pool (over recording.log); a client's explicit false still wins.",
  }),
  console: z.boolean().optional().meta({
    description:
      "Capture the browser console of every session of this pool (over recording.console; local pools); a client's explicit false still wins.",
  }),
  network: z.boolean().optional().meta({
    description:
      "Capture the network traffic of every session of this pool as HAR (over recording.network; local pools); a client's explicit false still wins.",
  }),
  keep: z.enum(['all', 'failed'], { error: 'must be "all" or "failed"' }).optional().meta({
    description:
      "Which of this pool's ended sessions keep their video (over recording.keep); a client's gridgate:options.keep wins.",
  }),
};

/** Where a docker-selenium container (ecs and eks pools) serves WebDriver and noVNC. */
export const containerPorts = {
  port: z
    .number()
    .int()
    .min(1)
    .max(65535)
    .default(4444)
    .meta({ description: "The browser container's WebDriver port." }),
  vncPort: z
    .union([z.literal(false), z.number().int().min(0).max(65535)])
    .default(7900)
    .meta({
      description:
        "The browser container's noVNC port (docker-selenium serves it on 7900), for the status page's live view through a Node server; false or 0: none (screenshots only).",
    }),
  vncPassword: z.string().default('secret').meta({
    description:
      "The browser's VNC password (docker-selenium's SE_VNC_PASSWORD, 'secret' unless changed), handed to the status page's viewer.",
  }),
};

/** The docker-selenium video recorder's image, beside the browser in an ecs task or an eks pod. */
export const recorderImage = z.string().min(1).default('selenium/video:latest').meta({
  description:
    "The recorder's image (selenium/video); pin it to the release of the browser image (e.g. ffmpeg-7.1-20250606 beside 4.33.0-20250606).",
});
