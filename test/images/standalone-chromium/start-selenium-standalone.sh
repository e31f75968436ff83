#!/bin/bash
# docker-selenium's start-selenium-standalone.sh in a few lines: the SE_* environment as server flags, and a
# Chromium stereotype carrying the noVNC port, as docker-selenium's node announces it; managed downloads on,
# as docker-selenium's SE_NODE_ENABLE_MANAGED_DOWNLOADS sets them.
set -e
V=$(chromium --version | awk '{print $2}')
cat > /tmp/config.toml <<TOML
[node]
detect-drivers = false
selenium-manager = false
enable-managed-downloads = true
[[node.driver-configuration]]
display-name = "chrome"
stereotype = '{"browserName": "chrome", "browserVersion": "${V}", "platformName": "linux", "goog:chromeOptions": {"binary": "/usr/bin/chromium"}, "se:noVncPort": ${SE_NO_VNC_PORT}, "se:vncEnabled": true}'
max-sessions = ${SE_NODE_MAX_SESSIONS}
webdriver-executable = "/usr/bin/chromedriver"
TOML
ARGS=(--port "${SE_PORT}" --max-sessions "${SE_NODE_MAX_SESSIONS}" --session-timeout "${SE_NODE_SESSION_TIMEOUT}" --config /tmp/config.toml)
[ "${SE_BIND_ADDRESS}" != "0.0.0.0" ] && ARGS+=(--host "${SE_BIND_ADDRESS}")
[ "${SE_DRAIN_AFTER_SESSION_COUNT}" -gt 0 ] && ARGS+=(--drain-after-session-count "${SE_DRAIN_AFTER_SESSION_COUNT}")
exec java ${JAVA_OPTS} -jar /opt/selenium/selenium-server.jar standalone "${ARGS[@]}" ${SE_OPTS}
