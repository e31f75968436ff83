"""Uploads a file from this machine into a page's file input with send_keys, as a test on a Remote driver does.

Usage: upload_file.py GRID_URL PAGE_URL LOCAL_PATH. Removes LOCAL_PATH once sent, then prints "uploaded: <name> <text as JSON>" as the page reads it.
"""
import json
import os
import sys

from selenium import webdriver
from selenium.webdriver.common.by import By

READ_INPUT = """const file = document.getElementById('upload').files[0];
return file.text().then((text) => [file.name, text]);"""

grid_url, page_url, local_path = sys.argv[1:4]
driver = webdriver.Remote(command_executor=grid_url, options=webdriver.ChromeOptions())
try:
    driver.get(page_url)
    # A Remote driver's LocalFileDetector sees a local path: the file goes up through /se/file first.
    driver.find_element(By.ID, "upload").send_keys(local_path)
    # The browser must read its own copy: the file on this machine is gone before the page reads it.
    os.remove(local_path)
    name, text = driver.execute_script(READ_INPUT)
    print(f"uploaded: {name} {json.dumps(text)}")
finally:
    driver.quit()
