"""The test web server the W3C WebDriver tests load pages from (their `inline` and `url` fixtures).

Starts web-platform-tests' own wptserve on loopback, plain and TLS, on free ports, writes the server config
the tests read (WD_SERVER_CONFIG_FILE) to the path given as the first argument, prints "ready", and serves
until its standard input closes. The second argument is the web-platform-tests checkout.
"""
import json
import os
import sys

config_path, wpt = sys.argv[1], os.path.abspath(sys.argv[2])
# wptserve and its bundled dependencies (h2, six …), as web-platform-tests' own tools find them.
sys.path.insert(0, os.path.join(wpt, "tools"))
import localpaths  # noqa: E402, F401
from wptserve import server  # noqa: E402

certs = os.path.join(wpt, "tools", "certs")
# Chromium resolves every *.localhost name to loopback by itself, so no host rules are needed: "localhost"
# and "www.localhost" are two origins of one site, "127.0.0.1" is another site (the tests' "alt" domain).
domains = {"": {"": "localhost", "www": "www.localhost"}, "alt": {"": "127.0.0.1", "www": "127.0.0.1"}}
plain = server.WebTestHttpd(host="127.0.0.1", port=0, doc_root=wpt, bind_address=True)
secure = server.WebTestHttpd(
    host="127.0.0.1",
    port=0,
    doc_root=wpt,
    bind_address=True,
    use_ssl=True,
    key_file=os.path.join(certs, "web-platform.test.key"),
    certificate=os.path.join(certs, "web-platform.test.pem"),
)
for httpd in (plain, secure):
    httpd.start()

config = {
    "browser_host": "localhost",
    "domains": domains,
    "ports": {"http": [plain.port], "https": [secure.port]},
    "doc_root": wpt,
}
with open(config_path, "w") as f:
    json.dump(config, f)
print("ready", flush=True)
sys.stdin.read()
for httpd in (plain, secure):
    httpd.stop()
