#!/bin/sh
# The image's command, at docker-selenium's path, so the ecs task definition's hard lifetime
# (infra/browser-task-lifetime.ts: `timeout … /opt/bin/entry_point.sh`) runs this image as it runs theirs.
# Every address is allowed: the container's network is its own, and only the router's security group (or the
# container engine's port forward) reaches it. SE_PORT moves the port, as docker-selenium's does.
exec chromedriver --port="${SE_PORT:-4444}" --allowed-ips= --allowed-origins='*' --log-level=INFO
