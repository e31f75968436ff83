"""Opens a session, drives a page, and marks its result as suites moving off Sauce Labs do, then quits.

Usage: mark_result.py GRID_URL PAGE_URL RESULT NAME. RESULT is passed or failed; the result is sent as
execute_script("sauce:job-result=RESULT"), the name as execute_script("sauce:job-name=NAME"). Prints
"session: <id>" once the session is open.
"""
import sys

from selenium import webdriver

grid_url, page_url, result, name = sys.argv[1:5]
driver = webdriver.Remote(command_executor=grid_url, options=webdriver.ChromeOptions())
print(f"session: {driver.session_id}", flush=True)
try:
    driver.get(page_url)
    for step in range(10):
        driver.execute_script("document.body.textContent = 'step ' + arguments[0]", step)
    driver.execute_script(f"sauce:job-name={name}")
    driver.execute_script(f"sauce:job-result={result}")
finally:
    driver.quit()
