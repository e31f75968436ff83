/**
 * The final stage of a Dockerfile as a test reads it: its working directory, environment, the paths it
 * copies from the build stage, and its command (exec form), so a test can lay the image's files out in a
 * directory and run exactly what the container would.
 */
export interface DockerfileStage {
  workdir: string;
  env: Record<string, string>;
  /** COPY --from=… source → destination (relative destinations are under workdir). */
  copiesFromBuild: Array<{ from: string; to: string }>;
  command: string[];
}

export function finalStage(dockerfile: string): DockerfileStage {
  const lines = dockerfile
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const start = lines.findLastIndex((line) => /^FROM\s/i.test(line));
  const stage: DockerfileStage = { workdir: '/', env: {}, copiesFromBuild: [], command: [] };
  for (const line of lines.slice(start + 1)) {
    const [instruction, ...rest] = line.split(/\s+/);
    const argument = rest.join(' ');
    switch (instruction?.toUpperCase()) {
      case 'WORKDIR':
        stage.workdir = argument;
        break;
      case 'ENV':
        for (const pair of rest) {
          const [key, ...value] = pair.split('=');
          stage.env[key as string] = value.join('=');
        }
        break;
      case 'COPY': {
        const from = rest.find((part) => part.startsWith('--from='));
        const paths = rest.filter((part) => !part.startsWith('--'));
        if (from) stage.copiesFromBuild.push({ from: paths[0] as string, to: paths[1] as string });
        break;
      }
      case 'CMD':
        stage.command = JSON.parse(argument) as string[];
        break;
    }
  }
  if (stage.command.length === 0) throw new Error('the Dockerfile has no CMD in exec form');
  return stage;
}
