"""diagnose --format sarif is valid SARIF 2.1.0 (the official schema) and says what we mean.

Usage: sarif_check.py OBSREPLAY WORKDIR REPO_ROOT
"""
import json
import os
import subprocess
import sys

import jsonschema

obsreplay, work, root = sys.argv[1:4]
schema = json.load(open(os.path.join(root, "tools/scripts/python-checks/sarif-schema-2.1.0.json")))
subprocess.run([obsreplay, "demo"], cwd=work, check=True, stdout=subprocess.DEVNULL)


def sarif(*extra):
    run = subprocess.run([obsreplay, "diagnose", "obsreplay-demo.sqlite", "--format", "sarif",
                          "--source-root", root, *extra], cwd=work, capture_output=True, text=True)
    assert run.returncode in (0, 1), run.stderr
    assert run.stderr == "", run.stderr
    return json.loads(run.stdout)


log = sarif()
jsonschema.Draft4Validator.check_schema(schema)
jsonschema.Draft4Validator(schema).validate(log)
run = log["runs"][0]
rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
explain = subprocess.run([obsreplay, "diagnose", "--explain", rules[0]], capture_output=True, text=True).stdout
assert run["tool"]["driver"]["rules"][0]["help"]["text"] == explain
assert run["tool"]["driver"]["informationUri"].startswith("https://")
for rule in run["tool"]["driver"]["rules"]:
    # Each rule links to its anchor in docs/RULES.md, and the anchor is there.
    page, anchor = rule["helpUri"].split("#")
    assert page.endswith("/docs/RULES.md") and anchor == rule["id"].lower(), rule["helpUri"]
    assert f'<a id="{anchor}"></a>' in open(os.path.join(root, "docs/RULES.md")).read(), anchor
assert run["invocations"] == [{"executionSuccessful": True, "exitCode": 1}], run["invocations"]
results = run["results"]
assert len(results) == 9, len(results)
for result in results:
    assert result["ruleId"] in rules
    assert rules[result["ruleIndex"]] == result["ruleId"]
    assert len(result["partialFingerprints"]["obsreplayFingerprint/v2"]) == 32
    # The call sites' lines are found under --source-root: their text is a fingerprint too.
    assert len(result["partialFingerprints"]["obsreplaySourceLine/v1"]) == 32
    assert "baselineState" not in result
    for location in result.get("locations", []) + result.get("relatedLocations", []):
        uri = location["physicalLocation"]["artifactLocation"]["uri"]
        # Call sites resolve to the real files of the repository (relative to --source-root).
        assert os.path.isfile(os.path.join(root, uri)), uri
        assert uri.startswith("Sources/DemoApps/"), uri

# With a baseline, every result, each marked unchanged (baselined) or new; still valid.
baseline = os.path.join(work, "baseline.json")
subprocess.run([obsreplay, "diagnose", "obsreplay-demo.sqlite", "--write-baseline", baseline,
                "--fail-on", "never", "--source-root", root], cwd=work, check=True, stdout=subprocess.DEVNULL)
accepted = sarif("--baseline", baseline)
jsonschema.Draft4Validator(schema).validate(accepted)
assert [r["baselineState"] for r in accepted["runs"][0]["results"]] == ["unchanged"] * len(results)
assert accepted["runs"][0]["invocations"] == [{"executionSuccessful": True, "exitCode": 0}]
print(f"sarif: valid SARIF 2.1.0, {len(rules)} rules, {len(results)} results")
