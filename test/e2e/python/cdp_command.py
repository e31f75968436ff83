"""Sends CDP commands over the WebDriver command path with Python Selenium's execute_cdp_cmd, on a Remote driver.

Usage: cdp_command.py GRID_URL OUTSIDE_FOLDER. Prints "product: <Browser.getVersion's product>", then
"refused: <error>" for Browser.setDownloadBehavior to OUTSIDE_FOLDER (or "accepted" if the grid let it through).
"""
import sys

from selenium import webdriver
from selenium.common.exceptions import InvalidArgumentException
from selenium.webdriver.chromium.remote_connection import ChromiumRemoteConnection

grid_url, outside = sys.argv[1:3]
# Selenium's own Chrome connection knows executeCdpCommand (POST …/goog/cdp/execute); a plain Remote does not.
executor = ChromiumRemoteConnection(grid_url, vendor_prefix="goog", browser_name="chrome", ignore_proxy=True)
driver = webdriver.Remote(command_executor=executor, options=webdriver.ChromeOptions())
# execute_cdp_cmd as Chrome's local driver defines it, on this Remote driver (it only sends executeCdpCommand).
execute_cdp_cmd = webdriver.Chrome.execute_cdp_cmd
try:
    print(f"product: {execute_cdp_cmd(driver, 'Browser.getVersion', {})['product']}", flush=True)
    try:
        execute_cdp_cmd(driver, "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": outside})
        print("accepted")
    except InvalidArgumentException as error:
        print(f"refused: {error.msg}")
finally:
    driver.quit()
