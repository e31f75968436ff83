"""Drives real Chromium through gridgate with Python Selenium (Debian's python3-selenium), unmodified.

Usage: /usr/bin/python3 drive_grid.py GRID_URL PAGE_URL
Prints one "ok: ..." line per check, then "session: <id>" and "passed: <n> checks"; any failed
check raises, so the script exits non-zero (after quitting the session).
"""

import base64
import sys

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
WAIT_SECONDS = 30  # generous: real Chromium on a busy machine can be slow
checks = 0


def check(description, actual, expected):
    global checks
    if actual != expected:
        raise AssertionError(f"{description}: expected {expected!r}, got {actual!r}")
    checks += 1
    print(f"ok: {description}", flush=True)


def fill_in_form(driver, page_url):
    driver.get(page_url)
    title = driver.title
    if title != "gridgate test page":
        # Chromium's own error page (its title is the host) says why the page did not load.
        page = driver.execute_script("return document.body ? document.body.innerText : ''")
        print(f"page at {driver.current_url}: {' '.join(page.split())[:300]}", file=sys.stderr)
    check("title", title, "gridgate test page")
    check("heading", driver.find_element(By.ID, "heading").text, "Hello from 127.0.0.1")
    driver.find_element(By.CSS_SELECTOR, "input#name").send_keys("Guido")
    driver.find_element(By.ID, "greet").click()
    WebDriverWait(driver, WAIT_SECONDS).until(
        expected_conditions.text_to_be_present_in_element((By.ID, "result"), "Hello, Guido")
    )
    check("result text", driver.find_element(By.ID, "result").text, "Hello, Guido")
    check("form fields", len(driver.find_elements(By.CSS_SELECTOR, "form input, form button")), 2)
    check("script", driver.execute_script('return document.title + " " + (6 * 7);'), "gridgate test page 42")
    png = base64.b64decode(driver.get_screenshot_as_base64())
    check("screenshot is a PNG", png[:8], PNG_SIGNATURE)
    check("screenshot is not trivial", len(png) > 2000, True)


def cookies(driver):
    check("server cookie", (driver.get_cookie("served-by") or {}).get("value"), "gridgate-test")
    driver.add_cookie({"name": "added-by", "value": "python-selenium"})
    check("added cookie", (driver.get_cookie("added-by") or {}).get("value"), "python-selenium")
    check("cookie names", sorted(c["name"] for c in driver.get_cookies()), ["added-by", "served-by"])


def second_window(driver):
    first = driver.current_window_handle
    driver.find_element(By.ID, "open-second").click()
    WebDriverWait(driver, WAIT_SECONDS).until(expected_conditions.number_of_windows_to_be(2))
    second = next(handle for handle in driver.window_handles if handle != first)
    driver.switch_to.window(second)
    WebDriverWait(driver, WAIT_SECONDS).until(expected_conditions.title_is("second page"))
    check("second window text", driver.find_element(By.ID, "second").text, "second")
    driver.close()
    driver.switch_to.window(first)
    check("one window left", driver.window_handles, [first])
    check("back in the first window", driver.title, "gridgate test page")


def main(grid_url, page_url):
    driver = webdriver.Remote(command_executor=grid_url, options=webdriver.ChromeOptions())
    print(f"session: {driver.session_id}", flush=True)
    try:
        fill_in_form(driver, page_url)
        cookies(driver)
        second_window(driver)
    finally:
        driver.quit()
    print(f"passed: {checks} checks", flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} GRID_URL PAGE_URL")
    main(sys.argv[1], sys.argv[2])
