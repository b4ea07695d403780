"""Debian's chromium, headless, driven through chromium-driver by Selenium: nothing is downloaded (Selenium Manager
is kept offline; the browser and the driver are the distribution's)."""
import os
import shutil

os.environ.setdefault("SE_OFFLINE", "true")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402


def start(downloads=None, width=1280, height=1000):
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--no-first-run", "--disable-extensions", "--disable-background-networking",
                     f"--window-size={width},{height}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if downloads:
        options.add_experimental_option("prefs", {
            "download.default_directory": downloads, "download.prompt_for_download": False,
            "safebrowsing.enabled": False})
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_page_load_timeout(60)
    if downloads:
        driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    return driver


def console_errors(driver):
    """The browser console's errors since the last call: a refused script or style (the Content-Security-Policy)
    shows here."""
    return [entry["message"] for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
