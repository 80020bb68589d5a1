#!/usr/bin/env python3
"""Opens obsreplay HTML reports in headless Chromium and checks them as a person would.

    report-browser-check.py --chromium PATH --out DIR SHOWCASE.html [LARGE.html]

Drives Chromium through its DevTools protocol over a pipe (--remote-debugging-pipe: no
port, no extra packages). For each report: loads it from disk; fails on any JavaScript
exception, console error or browser log error (a Content-Security-Policy violation, a
failed load); compares the drawn SVG with the page's own data (a lane per registration,
a tick per change, a mark per delivery, crosses and gap marks); saves a screenshot and
checks, by decoding the PNG, that it is not blank. On the showcase report it also checks
the exact counts of JournalFixtures.ShowcaseScenario, hovers the off-main delivery and
reads the tooltip, drags across the chart to zoom, and clicks a finding to highlight
what it cites (a second screenshot).

Prints one line per check and ends with 'N passed, M failed'; exits 1 if any failed.
"""
import argparse
import base64
import json
import select
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

WIDTH, HEIGHT = 1500, 1000


class Browser:
    """Headless Chromium with one page, spoken to over the DevTools pipe (fds 3 and 4)."""

    def __init__(self, chromium, log_path):
        self.profile = tempfile.mkdtemp(prefix="report-check-profile-")
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()

        def wire():
            # dup2 onto the same number keeps close-on-exec: clear it explicitly.
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.log = open(log_path, "wb")
        self.process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
             "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
             f"--user-data-dir={self.profile}", f"--window-size={WIDTH},{HEIGHT}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, preexec_fn=wire, close_fds=False)
        os.close(to_child_r)
        os.close(from_child_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.session = None
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})

    def receive(self, deadline):
        while b"\0" not in self.buffer:
            if time.time() > deadline:
                raise TimeoutError("Chromium did not answer in time")
            if self.process.poll() is not None:
                raise RuntimeError(f"Chromium exited with status {self.process.returncode}")
            ready, _, _ = select.select([self.from_child], [], [], 0.5)
            if ready:
                chunk = os.read(self.from_child, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed the DevTools pipe")
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, timeout=60):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session:
            message["sessionId"] = self.session
        os.write(self.to_child, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            reply = self.receive(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method, timeout=120):
        deadline = time.time() + timeout
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                del self.events[index]
                return event
        while True:
            event = self.receive(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluate failed: {result['exceptionDetails'].get('text')}: {expression[:80]}")
        return result["result"].get("value")

    def errors(self):
        """JavaScript exceptions, console errors and browser log errors seen so far."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                found.append("exception: " + str(details.get("exception", {}).get("description") or details.get("text")))
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append("console." + params["type"] + ": " + " ".join(str(a.get("value", a.get("description")))
                                                                         for a in params.get("args", [])))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                entry = params["entry"]
                found.append(f"log ({entry.get('source')}): {entry.get('text')}")
        return found

    def mouse(self, kind, x, y, buttons=0, button="none"):
        self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": button, "buttons": buttons,
                                               "clickCount": 1 if kind in ("mousePressed", "mouseReleased") else 0})

    def screenshot(self, path):
        data = base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"})["data"])
        with open(path, "wb") as file:
            file.write(data)
        return data

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


def png_pixels(data):
    """(width, height, rows of bytes, bytes per pixel) of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    offset, idat, header = 8, b"", None
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    width, height, depth, colour = header[:4]
    assert depth == 8 and colour in (2, 6), f"unexpected PNG format depth {depth} colour {colour}"
    bpp = 3 if colour == 2 else 4
    raw, stride, rows, previous = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = previous[i]
            corner = previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(line)
        previous = line
    return width, height, rows, bpp


def not_blank(data):
    """Share of non-white pixels and number of distinct colours (sampled every 3rd pixel)."""
    width, height, rows, bpp = png_pixels(data)
    colours, inked, sampled = set(), 0, 0
    for y in range(0, height, 3):
        row = rows[y]
        for x in range(0, width, 3):
            pixel = bytes(row[x * bpp:x * bpp + 3])
            colours.add(pixel)
            sampled += 1
            if min(pixel) < 235:
                inked += 1
    return width, height, inked / sampled, len(colours)


def page_data(path):
    """The report's embedded data, each session's rows decoded with the page's layout."""
    html = open(path, encoding="utf-8").read()
    start = html.index('<script type="application/json" id="report-data">')
    start = html.index(">", start) + 1
    data = json.loads(html[start:html.index("</script>", start)])
    kinds = data["layout"]["kinds"]
    for session in data["sessions"]:
        ev, index, rows = session["ev"], 0, []
        for _ in range(session["rows"]):
            kind = kinds[ev[index]]
            fields = dict(zip(kind["fields"], ev[index + 5:index + 5 + len(kind["fields"])]))
            fields["flags"] = ev[index + 4]
            rows.append((kind["name"], fields))
            index += 5 + len(kind["fields"])
        session["decoded"] = rows
    return data


DOM_COUNTS = """(() => {
  const s = document.querySelector('section.session:not([hidden])');
  const sum = sel => [...s.querySelectorAll(sel)].reduce((n, e) => n + Number(e.getAttribute('data-count')), 0);
  return {
    rendered: document.body.getAttribute('data-rendered'), renderMs: Number(document.body.getAttribute('data-render-ms')),
    jsErrors: document.body.getAttribute('data-js-errors'),
    lanes: s.querySelectorAll('svg.chart g.lane').length, channels: s.querySelectorAll('svg.chart g.channel').length,
    laneBars: s.querySelectorAll('svg.chart g.lane rect.bar').length,
    ticks: sum('path.tick'), silentTicks: sum('path.tick.silent'),
    deliveries: sum('path.mark:not(.skipped)'), skipped: sum('path.mark.skipped'),
    offMain: sum('path.mark.off-main'), slow: sum('path.mark.slow'),
    unregistered: sum('path.unregistered'), gaps: sum('path.gap'),
    scopes: s.querySelectorAll('svg.chart g.scope').length + sum('path.scope-tick.began'),
    findings: s.querySelectorAll('li.finding').length, cites: s.querySelectorAll('button.cite').length,
    range: s.querySelector('.range').textContent, height: Number(s.querySelector('svg.chart').getAttribute('height')),
    svgElements: s.querySelectorAll('svg.chart *').length
  };
})()"""


class Checker:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"  ok    {name}")
        else:
            self.failed += 1
            print(f"  FAIL  {name}{': ' + detail if detail else ''}")
        return ok


def center(browser, selector):
    box = browser.evaluate(f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
        if (!e) return null; const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()""")
    return box


def open_report(browser, path):
    browser.events.clear()
    started = time.time()
    browser.call("Page.navigate", {"url": "file://" + os.path.abspath(path)})
    browser.wait_for("Page.loadEventFired")
    return time.time() - started


def check_report(browser, checker, path, out, name):
    seconds = open_report(browser, path)
    counts = browser.evaluate(DOM_COUNTS)
    size = os.path.getsize(path)
    print(f"{name}: {size / 1e6:.2f} MB, loaded and drawn in {seconds:.2f} s (script: {counts['renderMs']} ms), "
          f"{counts['svgElements']} SVG elements")
    checker.check(f"{name}: the timeline was drawn", counts["rendered"] == "ok", str(counts["rendered"]))
    session = page_data(path)["sessions"][0]
    rows = session["decoded"]
    kinds = {}
    for kind, fields in rows:
        kinds[kind] = kinds.get(kind, 0) + 1
    expected = {
        "lanes": len(session["lanes"]), "channels": len(session["channels"]), "ticks": kinds.get("changed", 0),
        "deliveries": sum(1 for kind, f in rows if kind == "delivered" and f["lane"] > 0),
        "skipped": sum(1 for kind, f in rows if kind == "skipped" and f["lane"] > 0),
        "unregistered": kinds.get("removeUnregistered", 0), "gaps": kinds.get("gap", 0),
        "scopes": len(session["scopes"]),
    }
    drawn = {key: counts[key] for key in expected}
    checker.check(f"{name}: one lane per registration, a tick per change, a mark per delivery (as the data says)",
                  drawn == expected, f"drawn {drawn}, data {expected}")
    return counts


def measure(args):
    """Prints, per report, its size and the median of 3 loads: until the load event, and the
    script's own drawing time (data-render-ms)."""
    browser = Browser(args.chromium, os.path.join(args.out, "chromium.log"))
    try:
        for path in [args.showcase] + ([args.large] if args.large else []):
            loads, draws = [], []
            for _ in range(3):
                loads.append(open_report(browser, path))
                draws.append(browser.evaluate(DOM_COUNTS)["renderMs"])
            errors = browser.errors()
            print(f"{os.path.basename(path)}: {os.path.getsize(path) / 1e6:.2f} MB, load and draw {sorted(loads)[1]:.2f} s, "
                  f"script {sorted(draws)[1]} ms{', ERRORS: ' + '; '.join(errors) if errors else ''}")
    finally:
        browser.close()
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chromium", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--measure", action="store_true",
                        help="only time loading and drawing each report (median of 3 loads), no checks")
    parser.add_argument("showcase")
    parser.add_argument("large", nargs="?")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.measure:
        return measure(args)
    checker = Checker()
    started = time.time()
    browser = Browser(args.chromium, os.path.join(args.out, "chromium.log"))
    print(f"Chromium started in {time.time() - started:.2f} s")
    try:
        counts = check_report(browser, checker, args.showcase, args.out, "showcase")
        exact = {key: counts[key] for key in ("lanes", "channels", "laneBars", "ticks", "silentTicks", "deliveries",
                                               "skipped", "offMain", "slow", "unregistered", "gaps", "scopes",
                                               "findings", "cites")}
        want = {"lanes": 9, "channels": 6, "laneBars": 9, "ticks": 14, "silentTicks": 1, "deliveries": 15,
                "skipped": 1, "offMain": 1, "slow": 1, "unregistered": 1, "gaps": 1, "scopes": 1, "findings": 11,
                "cites": 33}
        checker.check("showcase: the exact counts of ShowcaseScenario", exact == want, f"got {exact}")
        shot = browser.screenshot(os.path.join(args.out, "report-showcase.png"))
        width, height, inked, colours = not_blank(shot)
        checker.check(f"showcase: screenshot {width}x{height} is not blank ({inked:.1%} inked, {colours} colours)",
                      (width, height) == (WIDTH, HEIGHT) and inked > 0.03 and colours >= 20)

        # Hover the off-main delivery: the tooltip names it.
        point = center(browser, 'g.lane path.mark.off-main')
        browser.mouse("mouseMoved", point[0], point[1])
        tip = browser.evaluate("document.getElementById('tooltip').hidden ? null : document.getElementById('tooltip').innerText")
        checker.check("showcase: hovering the off-main mark shows its delivery",
                      tip is not None and "seq\t33" in tip and "expects the main thread, ran on thread 2" in tip, repr(tip))
        # The time axis maps milliseconds to screen x (labels are centred on their time).
        axis = browser.evaluate("""[...document.querySelectorAll('svg.axis text')].map(t => {
            const r = t.getBoundingClientRect(); return [t.textContent, r.left + r.width / 2]; })""")
        ticks = {label: x for label, x in axis}
        x20, x40 = ticks.get("+20 ms"), ticks.get("+40 ms")
        if checker.check("showcase: the time axis is labelled", x20 is not None and x40 is not None, repr(axis)):
            def x_at(ms):
                return x20 + (x40 - x20) * (ms - 20) / 20

            # Hover the change at seq 24 (+24 ms) on the isVisible channel: its values, as text.
            row = browser.evaluate("""(() => { const r = document.querySelector('g.channel[data-channel="3"] rect.group-bg')
                .getBoundingClientRect(); return r.top + r.height / 2; })()""")
            browser.mouse("mouseMoved", x_at(24), row)
            tip = browser.evaluate("document.getElementById('tooltip').innerText")
            checker.check("showcase: hovering a change shows journal text as text",
                          "seq\t24" in tip and "</script><script>alert(\"x\")</script>" in tip and "line1\\nline2" in tip,
                          repr(tip))

            # Drag across the chart from +29.5 ms to +40 ms: the view zooms to that range.
            y = browser.evaluate("document.querySelector('svg.chart').getBoundingClientRect().top") + 40
            browser.mouse("mouseMoved", x_at(29.5), y)
            browser.mouse("mousePressed", x_at(29.5), y, buttons=1, button="left")
            browser.mouse("mouseMoved", x_at(35), y, buttons=1, button="left")
            browser.mouse("mouseMoved", x_at(40), y, buttons=1, button="left")
            browser.mouse("mouseReleased", x_at(40), y, button="left")
            zoomed = browser.evaluate(DOM_COUNTS)
            # Deliveries at +30, +31 and +33 ms are in that range.
            # 'Showing +29.441 ms – +39.975 ms of 76.000 ms': within a pixel (0.07 ms) or two.
            shown = [float(word) for word in zoomed["range"].replace("+", " ").split() if word[0].isdigit()]
            checker.check("showcase: dragging zooms into +29.5 ms .. +40 ms",
                          len(shown) == 3 and abs(shown[0] - 29.5) < 0.2 and abs(shown[1] - 40) < 0.2
                          and zoomed["deliveries"] == 3, f"{zoomed['range']!r}, {zoomed['deliveries']} marks")
            browser.evaluate("document.querySelector('.zoom-reset').click()")
            checker.check("showcase: 'Show all' zooms back out", browser.evaluate(DOM_COUNTS)["deliveries"] == 15)

        # Click the first finding: its lanes and the events it cites light up.
        point = center(browser, 'li.finding p.message')
        browser.mouse("mouseMoved", point[0], point[1])
        browser.mouse("mousePressed", point[0], point[1], buttons=1, button="left")
        browser.mouse("mouseReleased", point[0], point[1], button="left")
        lit = browser.evaluate("""[document.querySelectorAll('g.lane.hl').length, document.querySelectorAll('g.channel.hl').length,
            document.querySelectorAll('circle.hl-event').length, document.querySelectorAll('li.finding.selected').length]""")
        checker.check("showcase: clicking last-callback-wins highlights 2 lanes, its channel and 2 events",
                      lit == [2, 1, 2, 1], repr(lit))
        shot = browser.screenshot(os.path.join(args.out, "report-showcase-finding.png"))
        checker.check("showcase: screenshot with the finding highlighted is not blank", not_blank(shot)[2] > 0.03)
        errors = browser.errors()
        checker.check("showcase: no JavaScript errors, console errors or blocked loads", not errors
                      and counts["jsErrors"] is None, "; ".join(errors))

        if args.large:
            counts = check_report(browser, checker, args.large, args.out, "large")
            shot = browser.screenshot(os.path.join(args.out, "report-large.png"))
            width, height, inked, colours = not_blank(shot)
            checker.check(f"large: screenshot is not blank ({inked:.1%} inked, {colours} colours)",
                          inked > 0.03 and colours >= 20)
            errors = browser.errors()
            checker.check("large: no JavaScript errors, console errors or blocked loads", not errors
                          and counts["jsErrors"] is None, "; ".join(errors))
    except Exception as error:  # a failure to drive the browser is a failed check, said plainly
        checker.check("the browser could be driven", False, f"{type(error).__name__}: {error}")
    finally:
        browser.close()
    print(f"report-browser-check: {checker.passed} passed, {checker.failed} failed")
    return 1 if checker.failed else 0


if __name__ == "__main__":
    sys.exit(main())
