"""README section 5's Datasette command, run as written (plus `--get`, which answers one
request without serving): every table and view page of the demo journal answers 200 with
those settings, and the journal's bytes are unchanged afterwards.

Usage: datasette_settings_check.py OBSREPLAY WORKDIR REPO_ROOT
"""
import hashlib
import json
import os
import shlex
import subprocess
import sys

obsreplay, work, root = sys.argv[1:4]
readme = open(os.path.join(root, "README.md"), encoding="utf-8").read().split("\n")
start = readme.index("```sh datasette")
command = readme[start + 1]
assert readme[start + 2] == "```" and command.startswith("datasette obsreplay-demo.sqlite "), command
subprocess.run([obsreplay, "demo"], cwd=work, check=True, stdout=subprocess.DEVNULL)
journal = os.path.join(work, "obsreplay-demo.sqlite")
before = hashlib.sha256(open(journal, "rb").read()).hexdigest()
datasette = os.path.join(os.path.dirname(sys.executable), "datasette")


def get(path):
    """The README's command with `--get PATH`: Datasette's answer to one request."""
    arguments = shlex.split(command)
    result = subprocess.run([datasette] + arguments[1:] + ["--get", path], cwd=work, capture_output=True, text=True)
    assert result.returncode == 0, f"{command} --get {path}: exit {result.returncode}\n{result.stderr[-2000:]}"
    return result.stdout


tables = json.loads(get("/obsreplay-demo.json"))["tables"]
views = json.loads(get("/obsreplay-demo.json"))["views"]
names = [table["name"] for table in tables] + [view["name"] for view in views]
for name in ["session_summary", "event_log", "registration_log", "channel_names", "object_names", "call_site_names"]:
    assert name in names, (name, names)
for name in names:
    page = get(f"/obsreplay-demo/{name}")
    assert "<html" in page, name
    rows = json.loads(get(f"/obsreplay-demo/{name}.json?_shape=array"))
    assert isinstance(rows, list), name
assert hashlib.sha256(open(journal, "rb").read()).hexdigest() == before, "Datasette changed the journal"
print(f"datasette settings: {len(names)} table and view pages answered with the README's settings")
