"""diagnose --format junit is JUnit XML that CI tools read: parsed by junitparser (the PyPI
library test-report tools build on) and by the standard library's XML parser, with the
suites, cases and failures the demo's findings call for.

Usage: junit_check.py OBSREPLAY WORKDIR REPO_ROOT
"""
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

from junitparser import Failure, JUnitXml

obsreplay, work, root = sys.argv[1:4]
subprocess.run([obsreplay, "demo"], cwd=work, check=True, stdout=subprocess.DEVNULL)


def junit(*extra):
    run = subprocess.run([obsreplay, "diagnose", "obsreplay-demo.sqlite", "--format", "junit", "-o", "report.xml",
                          "--source-root", root, *extra], cwd=work, capture_output=True, text=True)
    assert run.returncode in (0, 1) and run.stdout == "" and run.stderr == "", run
    ElementTree.parse(f"{work}/report.xml")  # well-formed XML 1.0
    return run.returncode, JUnitXml.fromfile(f"{work}/report.xml")


status, xml = junit()
suites = list(xml)
# One suite per session of the demo (10), one case per rule of the catalog (docs/RULES.md,
# which RulesDocumentTests keeps equal to the catalog).
with open(f"{root}/docs/RULES.md", encoding="utf-8") as page:
    rules = len(re.findall(r"^## OJ[0-9]{3} ", page.read(), flags=re.M))
assert rules > 0, "no rules in docs/RULES.md"
assert [suite.name for suite in suites] == [f"obsreplay-demo.sqlite, session {n}" for n in range(1, 11)], [s.name for s in suites]
assert all(suite.tests == rules and len(list(suite)) == rules for suite in suites), (rules, [suite.tests for suite in suites])
failed = {(suite.name, case.name): [r for r in case.result if isinstance(r, Failure)] for suite in suites for case in suite}
failing = sorted(key for key, results in failed.items() if results)
# The default gate (--fail-on error): the demo's errors, in the buggy sessions only.
assert failing == [
    ("obsreplay-demo.sqlite, session 1", "OJ001 last-callback-wins"),
    ("obsreplay-demo.sqlite, session 3", "OJ008 off-main-delivery"),
], failing
assert status == 1
first = failed[failing[0]][0]
assert first.type == "error" and first.message.startswith("2 findings; first: 3 owners assigned Player#1.isPlayingChanged"), first
assert "fingerprint: " in first.text and "Sources/DemoApps/MusicPlayerScenario.swift:110: error: [OJ001]" in first.text, first.text
assert sum(suite.failures for suite in suites) == 2

# --fail-on warning fails the rules with warnings too (6 cases: one per rule and session); a
# baseline of everything fails nothing.
status, xml = junit("--fail-on", "warning")
assert sum(suite.failures for suite in xml) == 6 and status == 1, [(s.name, s.failures) for s in xml]
subprocess.run([obsreplay, "diagnose", "obsreplay-demo.sqlite", "--write-baseline", "baseline.json", "--fail-on", "never"],
               cwd=work, check=True, stdout=subprocess.DEVNULL)
status, xml = junit("--baseline", "baseline.json", "--fail-on", "info")
assert sum(suite.failures for suite in xml) == 0 and status == 0
print(f"junit: {len(suites)} suites of {rules} cases, read by junitparser; failures follow --fail-on and --baseline")
