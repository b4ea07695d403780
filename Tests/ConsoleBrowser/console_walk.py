"""A person's walk through the web console, as a browser sees it; prints what it found as one JSON object, which
ConsoleBrowserTests checks. Arguments: BASE_URL TOKEN MERCHANT_ID DOWNLOAD_DIR [SCREENSHOT_DIR]."""
import json
import os
import sys
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait

import browser

base, token, merchant, downloads = sys.argv[1:5]
screenshots = sys.argv[5] if len(sys.argv) > 5 else None
found = {"errors": []}
driver = browser.start(downloads=downloads)
wait = WebDriverWait(driver, 30)


def texts(selector):
    return [element.text for element in driver.find_elements(By.CSS_SELECTOR, selector)]


def map_drawn():
    wait.until(lambda d: d.find_element(By.ID, "map").get_attribute("data-drawn") is not None)
    # The outlines arrive by fetch; give them a moment to be drawn.
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".leaflet-outlines-pane path")) > 0)


def shot(name):
    if screenshots:
        driver.save_screenshot(os.path.join(screenshots, name + ".png"))


try:
    # Without a session, a page sends the browser to sign in, and back after.
    driver.get(base + "/")
    found["startRedirectedTo"] = driver.current_url.replace(base, "")
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.ID, "sign-in").click()
    wait.until(conditions.presence_of_element_located((By.ID, "log-status")))
    found["afterSignIn"] = driver.current_url.replace(base, "")
    found["cookies"] = [{"name": c["name"], "httpOnly": c.get("httpOnly"), "sameSite": c.get("sameSite")}
                        for c in driver.get_cookies()]
    found["tokenInPage"] = token in driver.page_source
    found["tokenInStorage"] = driver.execute_script(
        "var all = []; for (var s of [localStorage, sessionStorage]) for (var i = 0; i < s.length; i++)"
        " all.push(s.getItem(s.key(i))); return all.join(' ');").find(token) >= 0
    found["logStatus"] = texts("#log-status dd")

    # Search for the merchant and open its page from the answers.
    box = driver.find_element(By.ID, "search-box")
    box.send_keys(merchant)
    box.submit()
    wait.until(conditions.presence_of_element_located((By.ID, "search-results")))
    found["searchResults"] = texts("#search-results a.result")
    driver.find_element(By.LINK_TEXT, merchant).click()
    wait.until(conditions.presence_of_element_located((By.ID, "merchant-facts")))
    map_drawn()
    found["merchantUrl"] = driver.current_url.replace(base, "")
    found["merchantTitle"] = driver.find_element(By.TAG_NAME, "h1").text
    found["markers"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path.marker"))
    found["addressMarkers"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path.marker.role-address"))
    found["terminalMarkers"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path.marker.role-terminal"))
    found["clusters"] = [element.get_attribute("textContent")
                         for element in driver.find_elements(By.CSS_SELECTOR, "#map .cluster")]
    found["accuracyCircles"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path.accuracy"))
    found["lines"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path.line"))
    found["addressPosition"] = texts("#address-position dd")
    found["latestFix"] = texts("#latest-fix dd")
    found["boundTerminals"] = texts("#terminals-table tbody tr td:first-child")
    found["drifts"] = texts("#terminals-table tbody tr td:nth-child(3)")
    found["failureCategories"] = texts("#failures-table tbody tr td:nth-child(4)")
    found["historyRows"] = len(driver.find_elements(By.CSS_SELECTOR, "#history-table tbody tr"))
    found["historyLocated"] = len([lat for lat in texts("#history-table tbody tr td:nth-child(3)") if lat != "(none)"])
    found["historyFirst"] = texts("#history-table tbody tr:first-child td:first-child")
    shot("merchant")

    # The history's next page.
    driver.find_element(By.ID, "history-older").click()
    wait.until(conditions.presence_of_element_located((By.ID, "history-newest")))
    found["olderUrl"] = driver.current_url.replace(base, "")
    found["olderRows"] = len(driver.find_elements(By.CSS_SELECTOR, "#history-table tbody tr"))
    found["olderFirst"] = texts("#history-table tbody tr:first-child td:first-child")
    found["olderHasNext"] = len(driver.find_elements(By.ID, "history-older")) > 0

    # A terminal's page, from the merchant's.
    driver.get(base + found["merchantUrl"])
    terminal_links = driver.find_elements(By.CSS_SELECTOR, "#terminals-table tbody tr td:first-child a")
    if terminal_links:
        terminal_links[0].click()
        wait.until(conditions.presence_of_element_located((By.ID, "terminal-facts")))
        map_drawn()
        found["terminalFacts"] = texts("#terminal-facts dd")
        found["terminalBindings"] = texts("#bindings-table tbody tr td:nth-child(2)")
        found["terminalLines"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path.line"))
        found["terminalPageMarkers"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path.marker"))
        shot("terminal")

    # The drift report, its map and its CSV.
    driver.find_element(By.LINK_TEXT, "Reports").click()
    driver.find_element(By.ID, "report-terminal-drift").click()
    wait.until(conditions.presence_of_element_located((By.ID, "report-table")))
    map_drawn()
    found["driftRows"] = texts("#report-table tbody tr td:first-child")
    found["driftMarkers"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path.marker"))
    found["driftLines"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path.line"))
    shot("terminal-drift")
    driver.find_element(By.ID, "download-csv").click()
    path = os.path.join(downloads, "terminal-drift.csv")
    deadline = time.time() + 30
    while time.time() < deadline and not (os.path.exists(path) and os.path.getsize(path) > 0):
        time.sleep(0.2)
    found["csv"] = open(path, encoding="utf-8").read() if os.path.exists(path) else None

    # The zone picker: times move to the zone chosen.
    select = driver.find_element(By.ID, "time-zone")
    found["zoneOptions"] = [option.get_attribute("value") for option in select.find_elements(By.TAG_NAME, "option")]
    driver.get(base + found["merchantUrl"])
    driver.execute_script("var s = document.getElementById('time-zone'); s.value = 'UTC'; s.form.submit();")
    wait.until(lambda d: d.find_element(By.ID, "time-zone").get_attribute("value") == "UTC")
    found["utcFirst"] = texts("#history-table tbody tr:first-child td:first-child")

    # Sign out: the pages send the browser to sign in again.
    driver.find_element(By.ID, "sign-out").click()
    wait.until(conditions.presence_of_element_located((By.ID, "token")))
    found["afterSignOut"] = driver.current_url.replace(base, "")
    driver.get(base + found["merchantUrl"])
    found["merchantAfterSignOut"] = driver.current_url.replace(base, "")
    driver.get(base + "/reports/terminal-drift")
    found["reportAfterSignOut"] = driver.current_url.replace(base, "")
    found["errors"] = browser.console_errors(driver)
finally:
    driver.quit()

print(json.dumps(found))
