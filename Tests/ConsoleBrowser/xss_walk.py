"""Opens each page of the web console in a browser signed in, opens every marker's popup, and reports per page
what the ConsoleXSSTests check: whether any script of the stored corpus ran (window.__xss, an alert), which element
names and event-handler attributes the page holds, and which of the corpus's texts show as text.
Arguments: BASE_URL TOKEN PAGES_JSON TEXTS_JSON."""
import json
import sys

from selenium.common.exceptions import NoAlertPresentException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import browser

base, token, pages, expected = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
driver = browser.start()
wait = WebDriverWait(driver, 30)
report = {"pages": {}, "errors": []}

INSPECT = """
var names = {}, handlers = [], javascriptLinks = 0;
document.querySelectorAll('*').forEach(function (element) {
  names[element.localName] = true;
  for (var i = 0; i < element.attributes.length; i++) {
    var name = element.attributes[i].name.toLowerCase();
    if (name.indexOf('on') === 0) { handlers.push(element.localName + '[' + name + ']'); }
    if ((name === 'href' || name === 'src' || name === 'action') &&
        /^\\s*javascript:/i.test(element.attributes[i].value)) { javascriptLinks++; }
  }
});
return {names: Object.keys(names).sort(), handlers: handlers, javascriptLinks: javascriptLinks,
        xss: window.__xss === undefined ? null : String(window.__xss),
        text: document.querySelector('main') ? document.querySelector('main').innerText : document.body.innerText,
        hidden: getComputedStyle(document.body).display === 'none'};
"""


def alert_text():
    try:
        alert = driver.switch_to.alert
        text = alert.text
        alert.dismiss()
        return text
    except NoAlertPresentException:
        return None


try:
    driver.get(base + "/sign-in")
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.ID, "sign-in").click()
    wait.until(lambda d: d.find_elements(By.ID, "log-status"))
    for path in pages:
        driver.get(base + path)
        alerts = []
        if driver.find_elements(By.ID, "map-data"):
            try:
                wait.until(lambda d: d.find_element(By.ID, "map").get_attribute("data-drawn") is not None)
            except TimeoutException:
                report["errors"].append(path + ": the map was not drawn")
            # Every popup opened, one after another: their text comes from the corpus too.
            for marker in driver.find_elements(By.CSS_SELECTOR, "#map path.marker"):
                driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", marker)
                text = alert_text()
                if text is not None:
                    alerts.append(text)
        text = alert_text()
        if text is not None:
            alerts.append(text)
        found = driver.execute_script(INSPECT)
        found["alerts"] = alerts
        found["shown"] = [t for t in expected if t in found["text"]]
        found["status"] = driver.title
        del found["text"]
        report["pages"][path] = found
    report["errors"] += browser.console_errors(driver)
finally:
    driver.quit()

print(json.dumps(report))
