/** What a cloud browser's node is asked for in the new-session request, whether it runs in a task or a pod. */
import type { Capabilities } from '../../core/capabilities';
import type { EcsPoolConfig, EksPoolConfig } from '../../core/config';
import type { LaunchRequest } from '../../core/ports';
import { withScreenWindow } from '../../core/screen-and-zone';

/**
 * The client's capabilities without browserVersion. The catalog has matched the version already and the
 * pool's image is that version; the catalog's name for it ("156", "stable") need not be the node's full
 * version, which a node compares strictly (W3C WebDriver §7.2 "Matching capabilities").
 */
export function nodeCapabilities(requested: Capabilities): Capabilities {
  const { browserVersion: _version, ...rest } = requested;
  return rest;
}

/**
 * What an ecs task's or eks pod's node is asked for: a Chromium's window at the session's screen size; with a
 * video recorder beside it, whether to record this session (se:recordVideo, read by docker-selenium's
 * recorder; always said, so the recorder's own default never decides) and under what name (se:videoName: the
 * session's key, which the recordings bucket keys it by).
 */
export function recorderNodeCapabilities(
  pool: EcsPoolConfig | EksPoolConfig,
  request: Pick<LaunchRequest, 'capabilities' | 'key' | 'recording'>,
): Capabilities {
  const asked = withScreenWindow(nodeCapabilities(request.capabilities));
  if (!pool.recorder) return asked;
  return { ...asked, 'se:recordVideo': request.recording?.video ?? false, 'se:videoName': request.key };
}
