"""Opens a session asking for its video and log as Selenoid's users do (selenoid:options), drives a page, quits.

Usage: record_session.py GRID_URL PAGE_URL. Prints "session: <id>" once the session is open.
"""
import sys

from selenium import webdriver

grid_url, page_url = sys.argv[1:3]
options = webdriver.ChromeOptions()
options.set_capability(
    "selenoid:options",
    {"enableVideo": True, "enableLog": True, "name": "python checkout", "videoName": "checkout.mp4"},
)
driver = webdriver.Remote(command_executor=grid_url, options=options)
print(f"session: {driver.session_id}", flush=True)
try:
    driver.get(page_url)
    for step in range(30):
        driver.execute_script("document.body.textContent = 'step ' + arguments[0]", step)
finally:
    driver.quit()
