#!/usr/bin/python3
"""Drives the kiosk page of `emrtd serve` (docs/kiosk.md) in headless Chromium through Selenium.

Started by Tests/KioskServiceTests/KioskBrowserTests.swift, which holds the vpcd slot lock, generates the
documents and runs `emrtd serve`; this script starts and stops `emrtd simulate` for each scenario. One Chromium
session, scenarios in order: the access-data feedback comes from the service (POST /v1/access-data/check); a
mistyped MRZ is stopped by the service's check digits before a read is started; a wrong MRZ
(valid check digits, another document) shows #error; the right MRZ shows #progress advancing, #verdict
`accepted` and the face; #next clears the page and deletes the read; "Scan with camera" reads the MRZ from
Chromium's fake camera (a generated data page of the good document, "camera": a .y4m file) through POST /v1/mrz,
fills it in and the read ends `accepted`; a forged document shows `rejected`, and the
idle timeout clears it and deletes the read. With "screenshots" set it also saves docs/kiosk-example.png and
docs/report-example.png (the HTML report of the same specimen, through `emrtd read --html`).

Input: one JSON object on stdin. Output: one line per check passed; exit status 0 only when every check passed.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service as DriverService
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

cfg = json.load(sys.stdin)
BASE = cfg["base"]
TOKEN = cfg["token"]
EMRTD = cfg["emrtd"]
READER = cfg["reader"]
GOOD = cfg["good"]
FORGED = cfg["forged"]
IDLE = float(cfg["idleSeconds"])
SHOTS = cfg.get("screenshots")
SERVE_PID = int(cfg["servePid"])
CAMERA = cfg["camera"]

passed = 0


def check(condition, what):
    global passed
    if not condition:
        raise AssertionError(what)
    passed += 1
    print("ok:", what, flush=True)


def wait_for(predicate, seconds, what):
    deadline = time.time() + seconds
    last = None
    while time.time() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except Exception as e:  # the element may not exist yet
            last = e
        time.sleep(0.05)
    raise AssertionError(f"timed out after {seconds} s waiting for: {what} (last: {last!r})")


# ICAO 9303-3 §4.9, written again here so that the page's own implementation is checked against another one
def check_digit(s):
    def value(c):
        if c.isdigit():
            return ord(c) - 48
        if "A" <= c <= "Z":
            return ord(c) - 55
        return 0
    return str(sum(value(c) * (7, 3, 1)[i % 3] for i, c in enumerate(s)) % 10)


def td3_lines(mrz):
    check(len(mrz) == 88, "the generated specimen has a TD3 (2×44) MRZ")
    return mrz[:44], mrz[44:]


def with_document_number(mrz, number):
    """The same MRZ with another 9-character document number, every check digit recomputed."""
    l1, l2 = td3_lines(mrz)
    l2 = number + check_digit(number) + l2[10:]
    composite = l2[0:10] + l2[13:20] + l2[21:43]
    return l1 + l2[:43] + check_digit(composite)


def mistyped(mrz):
    """The last digit of the year of birth changed, check digits left as they were (a typing error)."""
    l1, l2 = td3_lines(mrz)
    d = l2[14]
    return l1 + l2[:14] + str((int(d) + 1) % 10) + l2[15:]


def api(method, path):
    req = urllib.request.Request(BASE + path, method=method, headers={"Authorization": "Bearer " + TOKEN})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def simulate(doc):
    port = 35963 if READER.endswith("00 00") else 35964
    p = subprocess.Popen([EMRTD, "simulate", "--profile", doc["folder"], "--quiet", "--vpcd", f"127.0.0.1:{port}"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return p


def stop(p):
    p.terminate()
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    time.sleep(0.8)  # let vpcd and pcscd see the card gone before the next one


def surname(mrz):
    return mrz[5:44].split("<<")[0].replace("<", " ")


options = webdriver.ChromeOptions()
for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000",
          "--lang=en-US", "--force-device-scale-factor=1", "--hide-scrollbars",
          # a camera that plays the generated data page, allowed without a prompt
          "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
          "--use-file-for-fake-video-capture=" + CAMERA]:
    options.add_argument(a)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=DriverService("/usr/bin/chromedriver"), options=options)
driver.set_script_timeout(15)
sims = []


def el(id_):
    return driver.find_element(By.ID, id_)


def present(id_):
    return len(driver.find_elements(By.ID, id_)) > 0


def visible(id_):
    return present(id_) and el(id_).is_displayed()


def fill_mrz(mrz):
    box = el("mrz")
    box.clear()
    box.send_keys(mrz[:44] + "\n" + mrz[44:])


def posted(prefix):
    return [r for r in driver.execute_script("return window.__requests") if r.startswith("POST " + prefix)]


def feedback_items(list_id, cls):
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, f"#{list_id} li.{cls}")]


def inputs_empty():
    return all(el(i).get_attribute("value") == "" for i in
               ["mrz", "document-number", "date-of-birth", "date-of-expiry", "can"])


def blob_state(url):
    """Whether a blob: URL still loads as an image (img-src allows blob:; a revoked URL fails)."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; const i = new Image();"
        "i.onload = () => done('loads'); i.onerror = () => done('revoked'); i.src = arguments[0];", url)


def screenshot(path):
    height = driver.execute_script("return Math.ceil(document.documentElement.scrollHeight)")
    chrome = driver.execute_script("return window.outerHeight - window.innerHeight")
    driver.set_window_size(1280, max(800, min(int(height) + int(chrome), 4000)))
    driver.execute_script("window.scrollTo(0, 0)")
    time.sleep(0.3)
    driver.save_screenshot(path)
    driver.set_window_size(1280, 1000)


try:
    # the launcher's way in: /login?token=… sets the cookie and sends the browser to /
    driver.get(BASE + "/login?token=" + TOKEN)
    check(driver.current_url == BASE + "/", "/login redirects to the page at /")
    check(driver.execute_script("return document.documentElement.lang") == "en", "the page's language is set")
    for i in ["mrz", "document-number", "date-of-birth", "date-of-expiry", "can", "start", "progress", "error", "next"]:
        check(present(i), f"#{i} is on the page")
    check(el("progress").tag_name == "progress", "#progress is a <progress> element")
    wait_for(lambda: READER in [o.get_attribute("value") for o in Select(el("reader")).options], 10,
             "the reader list from /v1/readers")
    Select(el("reader")).select_by_value(READER)
    wait_for(lambda: "Service ready" in el("service-status").text, 10, "the service status")
    check("no document" in el("reader-status").text.lower(), "the reader status says no document is on the reader")
    # every request the page makes from now on is recorded
    driver.execute_script("""
        window.__requests = [];
        const original = window.fetch;
        window.fetch = function (url, init) {
          window.__requests.push(((init && init.method) || 'GET') + ' ' + url);
          return original.apply(this, arguments);
        };
        // and every prompt the read screen shows when it appears
        window.__prompts = [];
        new MutationObserver(() => {
          if (!document.getElementById('reading').hidden)
            window.__prompts.push(document.getElementById('prompt').textContent);
        }).observe(document.getElementById('reading'), { attributes: true, attributeFilter: ['hidden'] });""")

    # 0. the feedback on the other MRZ formats and access data kinds (ICAO 9303-5 and -6 specimen MRZs), from the
    # service: the page has no check-digit or date rules of its own
    script = urllib.request.urlopen(urllib.request.Request(
        BASE + "/kiosk.js", headers={"Authorization": "Bearer " + TOKEN}), timeout=10).read().decode()
    check("[7, 3, 1]" not in script and "checkDigit" not in script, "the page's script holds no check-digit rules")
    for label, lines in [("TD1", ["I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6",
                                  "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"]),
                         ("TD2", ["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "D231458907UTO7408122F1204159<<<<<<<6"])]:
        el("mrz").clear()
        el("mrz").send_keys("\n".join(lines))
        wait_for(lambda: feedback_items("mrz-feedback", "ok"), 5, f"the service's answer on the {label} MRZ")
        check("every check digit holds" in feedback_items("mrz-feedback", "ok")[0] and
              not feedback_items("mrz-feedback", "bad"), f"the {label} specimen MRZ passes its check digits")
        el("mrz").clear()
        el("mrz").send_keys("\n".join(lines).replace("7408122", "7408132"))
        wait_for(lambda: feedback_items("mrz-feedback", "bad"), 5, f"the mistyped {label} MRZ marked")
        check("date of birth" in " ".join(feedback_items("mrz-feedback", "bad")),
              f"a mistyped date of birth in the {label} MRZ is marked")
    el("mrz").clear()
    el("mrz").send_keys("P<UTO")
    wait_for(lambda: "2×44" in el("mrz-feedback").text, 5, "the service's answer on an incomplete MRZ")
    check(True, "an incomplete MRZ is told what a whole one looks like")
    el("mrz").clear()
    el("document-number").send_keys("L898902C3")
    el("date-of-birth").send_keys("741312")
    el("date-of-expiry").send_keys("310415")
    wait_for(lambda: el("date-of-birth").get_attribute("aria-invalid") == "true", 5, "the date of birth marked")
    check(el("date-of-expiry").get_attribute("aria-invalid") == "false", "an impossible date of birth is marked")
    check("date of birth" in el("details-feedback").text.lower(), "the details feedback names the date of birth")
    el("start").click()
    wait_for(lambda: visible("error"), 5, "#error for the impossible date")
    check("date of birth" in el("error").text, "#error names the date of birth")
    el("next").click()
    el("can").send_keys("12345")
    el("start").click()
    wait_for(lambda: visible("error"), 5, "#error for a short CAN")
    check("6 digits" in el("error").text, "#error says the CAN has 6 digits")
    el("next").click()
    el("can").send_keys("123456")
    el("mrz").send_keys("P<UTO")
    el("start").click()
    wait_for(lambda: visible("error"), 5, "#error for two kinds of access data")
    check("cannot be combined" in el("error").text, "#error asks for one kind of access data only")
    el("next").click()
    check(not posted("/v1/reads"), "none of these started a read")
    check(posted("/v1/access-data/check"), "the page asked the service to check the access data")

    # 1. a mistyped MRZ: the check digits stop it before anything is sent
    bad = mistyped(GOOD["mrz"])
    fill_mrz(bad)
    wait_for(lambda: feedback_items("mrz-feedback", "bad"), 5, "the mistyped MRZ marked")
    check(True, "the check-digit feedback marks the mistyped MRZ while typing")
    check("birth" in el("mrz-feedback").text.lower(), "the feedback names the date of birth")
    el("start").click()
    wait_for(lambda: visible("error"), 5, "#error for the mistyped MRZ")
    check("check digit" in el("error").text, "#error says a check digit does not match")
    check(el("mrz").get_attribute("aria-invalid") == "true", "#mrz is marked invalid")
    check(not posted("/v1/reads"), "no read was started for the mistyped MRZ")
    check(not visible("reading"), "no read screen for the mistyped MRZ")
    _, readers = api("GET", "/v1/readers")
    check(all(not r["busy"] for r in json.loads(readers)["readers"]), "no read was started on the service")
    el("next").click()
    check(inputs_empty() and not visible("error"), "#next clears the mistyped MRZ and the error")

    # 2. a wrong MRZ (valid check digits, another document number): the chip refuses it, #error explains
    sim = simulate(GOOD)
    sims.append(sim)
    fill_mrz(with_document_number(GOOD["mrz"], "ZZ0000000"))
    wait_for(lambda: feedback_items("mrz-feedback", "ok"), 5, "the service's answer on the well-formed MRZ")
    check(not feedback_items("mrz-feedback", "bad"), "a well-formed wrong MRZ passes the check digits")
    el("start").click()
    wait_for(lambda: posted("/v1/reads"), 5, "POST /v1/reads")
    check(True, "the well-formed MRZ starts a read")
    wait_for(lambda: visible("error"), 40, "#error for the wrong MRZ")
    check("Place the document on the reader" in driver.execute_script("return window.__prompts"),
          "the page asked for the document")
    check("did not accept the access data" in el("error").text, "#error says the access data was not accepted")
    check(not present("verdict"), "no verdict for the wrong MRZ")
    el("next").click()
    check(inputs_empty() and not visible("error"), "#next clears the wrong MRZ and the error")
    stop(sim)

    # 3. the right MRZ: progress, verdict accepted, the face; then #next clears everything and deletes the read
    sim = simulate(GOOD)
    sims.append(sim)
    driver.execute_script("""
        window.__progress = [];
        new MutationObserver(() => window.__progress.push(document.getElementById('progress').value))
          .observe(document.getElementById('progress'), { attributes: true, attributeFilter: ['value'] });""")
    fill_mrz(GOOD["mrz"])
    wait_for(lambda: feedback_items("mrz-feedback", "ok"), 5, "the service's answer on the right MRZ")
    check(True, "the check-digit feedback confirms the MRZ")
    if SHOTS:
        screenshot(os.path.join(SHOTS, "kiosk-entry.png"))
        print("saved", os.path.join(SHOTS, "kiosk-entry.png"), flush=True)
    el("start").click()
    wait_for(lambda: present("verdict"), 40, "#verdict")
    check(el("verdict").text == "accepted", "#verdict is exactly 'accepted'")
    check("accepted" in el("banner").get_attribute("class"), "the banner carries the verdict's colour class")
    seen = driver.execute_script("return window.__progress")
    check(any(0 < v < 100 for v in seen), f"#progress advanced through intermediate values ({len(seen)} updates)")
    check(len(set(seen)) >= 3 and seen == sorted(seen), "#progress only moves forward")
    check(el("progress").get_attribute("value") == "100", "#progress ends at 100")
    wait_for(lambda: driver.execute_script(
        "const f = document.getElementById('face'); return f && f.complete && f.naturalWidth > 0"), 10,
        "the face image")
    face = el("face")
    check(face.tag_name == "img", "#face is an <img>")
    check(driver.execute_script("return document.getElementById('face').naturalWidth") > 0, "#face has a natural width")
    face_url = face.get_attribute("src")
    check(face_url.startswith("blob:"), "the face is shown from a blob: URL")
    name = surname(GOOD["mrz"])
    check(name in el("result").text, "the personal data is shown")
    check(len(driver.find_elements(By.CSS_SELECTOR, "#result table.checks tr")) > 3, "the checks are shown")
    shown = driver.execute_script(
        "return Array.from(document.querySelectorAll('#result .images img'))"
        ".map(i => [i.alt, i.complete && i.naturalWidth > 0])")
    check(len(shown) >= 4 and all(ok for _, ok in shown),
          f"the document's other images (DG5, DG7, DG11, DG12) are shown: {[alt for alt, _ in shown]}")
    check(GOOD["mrz"][44:53] not in driver.current_url, "the access data is not in the URL")
    read_id = driver.execute_script("return document.body.dataset.read")
    check(bool(read_id), "the page names the read on screen (data-read)")
    status, _ = api("GET", "/v1/reads/" + read_id)
    check(status == 200, "the read exists while its result is on screen")
    check(blob_state(face_url) == "loads", "the face's blob: URL loads while the result is shown")
    if SHOTS:
        screenshot(os.path.join(SHOTS, "kiosk-example.png"))
        print("saved", os.path.join(SHOTS, "kiosk-example.png"), flush=True)
    el("next").click()
    check(inputs_empty(), "after #next every input is empty")
    check(not present("verdict") and not present("face"), "after #next no verdict and no face")
    check(not visible("error") and not driver.execute_script("return document.body.dataset.read"),
          "after #next no error and no read named")
    source = driver.page_source
    check(name not in source and GOOD["mrz"][44:53] not in source,
          "after #next neither the name nor the document number is in the page")
    check(blob_state(face_url) == "revoked", "after #next the face's blob: URL is revoked")
    wait_for(lambda: api("GET", "/v1/reads/" + read_id)[0] == 404, 5, "the read deleted on the service")
    check(True, "after #next the read is gone from the service (GET → 404)")
    stop(sim)

    # 3b. the camera: "Type instead" stops it; then a scan fills the MRZ from the fake camera's data page, the camera
    # stops and the read starts as if typed, and ends accepted
    check(visible("scan") and not visible("camera"), "#scan is offered, no camera running")
    el("scan").click()
    wait_for(lambda: visible("camera") and driver.execute_script(
        "return document.getElementById('camera-view').videoWidth > 0"), 10, "the camera preview")
    el("scan-stop").click()
    check(not visible("camera") and driver.execute_script(
        "return document.getElementById('camera-view').srcObject === null"), "\"Type instead\" stops the camera")
    check(inputs_empty() and not visible("error"), "the stopped scan left nothing in the form")
    # the fallbacks to typing: a camera refused, and no MRZ in the scan's time (the service answering no_mrz to
    # every frame, the clock moved past the 30 s)
    driver.execute_script("""
        window.__gum = navigator.mediaDevices.getUserMedia;
        navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('no', 'NotAllowedError'));""")
    el("scan").click()
    wait_for(lambda: visible("error"), 5, "#error for a refused camera")
    check("permission denied" in el("error").text and "Type the MRZ" in el("error").text and not visible("camera"),
          "a refused camera falls back to typing with a message")
    el("next").click()
    driver.execute_script("""
        navigator.mediaDevices.getUserMedia = window.__gum;
        window.__fetch = window.fetch;
        window.fetch = (url, init) => url === '/v1/mrz'
          ? Promise.resolve(new Response('{"error":{"code":"no_mrz","message":"none"}}',
                                         { status: 422, headers: { 'Content-Type': 'application/json' } }))
          : window.__fetch(url, init);""")
    el("scan").click()
    wait_for(lambda: visible("camera"), 10, "the camera preview")
    driver.execute_script("window.__now = Date.now; Date.now = () => window.__now() + 31000;")
    wait_for(lambda: visible("error"), 5, "#error when no MRZ was read in time")
    check("No MRZ could be read from the camera in 30 seconds" in el("error").text and not visible("camera") and
          driver.execute_script("return document.getElementById('camera-view').srcObject === null"),
          "no MRZ in the scan's time stops the camera and falls back to typing with a message")
    driver.execute_script("Date.now = window.__now; window.fetch = window.__fetch;")
    el("next").click()
    sim = simulate(GOOD)
    sims.append(sim)
    driver.execute_script("window.__requests = []")
    el("scan").click()
    wait_for(lambda: present("verdict"), 90, "#verdict after the camera scan")
    check(posted("/v1/mrz"), f"camera frames were sent to POST /v1/mrz ({len(posted('/v1/mrz'))})")
    check(el("mrz").get_attribute("value").replace("\n", "") == GOOD["mrz"],
          "the MRZ from the camera is the document's, filled into #mrz")
    check(posted("/v1/reads"), "the scan started the read")
    check(el("verdict").text == "accepted", "#verdict is exactly 'accepted' after the camera scan")
    check(not visible("camera") and driver.execute_script(
        "const v = document.getElementById('camera-view'); return v.srcObject === null"), "the camera is stopped")
    el("next").click()
    check(inputs_empty() and not present("verdict"), "#next clears the scanned MRZ and the result")
    stop(sim)

    # 4. a forged document: rejected; then the idle timeout clears the page and deletes the read
    sim = simulate(FORGED)
    sims.append(sim)
    fill_mrz(FORGED["mrz"])
    el("start").click()
    wait_for(lambda: present("verdict"), 40, "#verdict for the forged document")
    shown = time.time()
    check(el("verdict").text == "rejected", "#verdict is exactly 'rejected' for the forged document")
    check("rejected" in el("banner").get_attribute("class"), "the banner carries the rejected class")
    check("REJECTED" not in el("verdict").text and el("banner").text.strip() != "",
          "the banner shows the word, not only a colour")
    forged_id = driver.execute_script("return document.body.dataset.read")
    wait_for(lambda: not present("verdict"), IDLE + 6, "the idle timeout")
    waited = time.time() - shown
    check(waited >= IDLE - 1.5, f"the idle timeout did not clear the result early ({waited:.1f} s of {IDLE:.0f} s)")
    check(inputs_empty() and not present("face"), "the idle timeout clears the inputs and the face")
    wait_for(lambda: api("GET", "/v1/reads/" + forged_id)[0] == 404, 5, "the read deleted on the service")
    check(True, "the idle timeout deleted the read (GET → 404)")
    stop(sim)

    # nothing stored, nothing logged, no policy violation
    check(driver.execute_script("return localStorage.length + sessionStorage.length") == 0, "nothing in web storage")
    check(driver.execute_script("return document.cookie") == "", "the session cookie is not readable by scripts")
    logs = driver.get_log("browser")
    secrets = [GOOD["mrz"][44:53], FORGED["mrz"][44:53], GOOD["mrz"][:20]]
    check(not any(s in e.get("message", "") for e in logs for s in secrets), "no access data in the console")
    check(not any("Content Security Policy" in e.get("message", "") for e in logs),
          "no Content-Security-Policy violation: " + "; ".join(e.get("message", "") for e in logs)[:500])

    # 5. the service gone: the status bar and #error say so in plain words
    os.kill(SERVE_PID, signal.SIGTERM)
    wait_for(lambda: "unreachable" in el("service-status").text, 15, "the status bar noticing the service gone")
    check(True, "the status bar says the service is unreachable")
    fill_mrz(GOOD["mrz"])
    el("start").click()
    wait_for(lambda: visible("error"), 10, "#error with the service gone")
    check("cannot be reached" in el("error").text, "#error says the service cannot be reached")
    el("next").click()
    check(inputs_empty() and not visible("error"), "#next clears the page with the service gone")

    # the HTML report of the same specimen, for docs/report-example.png
    if SHOTS:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "report.html")
            r = subprocess.run([EMRTD, "read", "--virtual", GOOD["folder"], "--mrz", GOOD["mrz"], "--trust",
                                GOOD["trust"], "--html", out, "--quiet"], capture_output=True, timeout=60)
            check(r.returncode == 0, "emrtd read --html wrote the report: " + r.stderr.decode()[:300])
            driver.get("file://" + out)
            screenshot(os.path.join(SHOTS, "report-example.png"))
            print("saved", os.path.join(SHOTS, "report-example.png"), flush=True)
finally:
    for p in sims:
        if p.poll() is None:
            p.kill()
            p.wait()
    driver.quit()

print(f"kiosk browser test: {passed} checks passed", flush=True)
