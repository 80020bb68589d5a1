#!/usr/bin/env python3
"""Fails when the package uses an API newer than its declared Apple floors.

Linux builds never check availability, so an API introduced in macOS 26 compiles here under a
macOS 15 floor and breaks every Xcode build. This check derives the newer APIs from the
toolchain in use, not from a list kept by hand:

  the floors        `platforms:` in Package.swift (`.macOS(.v15)`, `.iOS(.v18)`, ...)
  the annotations   every `@available(macOS NN, iOS NN, ...)` in the public `.swiftinterface`
                    of the toolchain's Swift, _Concurrency, Synchronization, Observation and
                    _StringProcessing modules (enclosing extensions and types included), and
                    the symbol graph `swift-symbolgraph-extract` makes of FoundationEssentials
                    (shipped without an interface)
  the uses          every identifier in the package's Swift files (Sources, Tests, tools,
                    Plugins), comments and string literals left out

A name is newer than the floor on a platform when every public declaration of it in those
modules is: one name with an old overload is never reported (the check misses a newer
overload rather than inventing a finding). Names the package declares itself are left out.
A use inside `@available(macOS NN, ...)`, `if #available(...)` or after `guard #available`
counts against that floor instead.

Usage: tools/scripts/availability-check.py [--root DIR] [--self-test] [--help]
  --root DIR    the package to check (default: this one)
  --self-test   also check that a planted `InlineArray` in a copy of the package is reported
Exit status: 0 none found, 1 newer APIs used (one line each: `file:line: name: platform
introduced (floor F), ...`), 2 usage or toolchain error.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

PLATFORMS = ("macOS", "iOS", "tvOS", "watchOS", "visionOS")
INTERFACE_MODULES = ("Swift", "_Concurrency", "Synchronization", "Observation", "_StringProcessing")
SYMBOL_GRAPH_MODULES = ("FoundationEssentials",)
DECL_KEYWORDS = {"func", "var", "let", "struct", "class", "enum", "protocol", "typealias", "actor",
                 "macro", "associatedtype", "case", "precedencegroup"}


def fail(message):
    print(f"availability-check: {message}", file=sys.stderr)
    sys.exit(2)


def version(text):
    parts = [int(p) for p in re.findall(r"\d+", text)[:3]]
    return tuple(parts + [0] * (3 - len(parts)))


def show(v):
    return ".".join(str(p) for p in (v[:2] if v[2] == 0 else v))


def parse_available(args):
    """Per-platform introduced versions of one `@available(...)`/`#available(...)` argument list."""
    found = {}
    for part in args.split(","):
        part = part.strip()
        m = re.match(r"^(macOS|iOS|tvOS|watchOS|visionOS)\s+(\d[\d.]*)$", part)
        if m:
            found[m.group(1)] = version(m.group(2))
    m = re.match(r"^\s*(macOS|iOS|tvOS|watchOS|visionOS)\s*,\s*introduced\s*:\s*(\d[\d.]*)", args)
    if m:
        found[m.group(1)] = version(m.group(2))
    return found


def merged(outer, inner):
    result = dict(outer)
    for platform, v in inner.items():
        result[platform] = max(result.get(platform, (0, 0, 0)), v)
    return result


# MARK: - the toolchain's annotations

def toolchain_lib():
    swift = shutil.which("swift")
    if swift is None:
        fail("no `swift` on PATH")
    lib = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(swift))), "lib", "swift", "linux")
    if not os.path.isdir(lib):
        fail(f"no toolchain library folder at {lib}")
    return lib


AVAILABLE_RE = re.compile(r"@available\(([^()]*)\)")
DECL_RE = re.compile(r"\b(" + "|".join(sorted(DECL_KEYWORDS)) + r")\s+`?([A-Za-z_][A-Za-z0-9_]*)")


def interface_declarations(path, declarations):
    """Adds (name, availability) for every declaration of one interface file."""
    scopes = [{}]
    saved = []  # scope depth at each open `#if`, restored at `#else`
    pending = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            stripped = line.strip()
            if stripped.startswith("#if"):
                saved.append(len(scopes))
                continue
            if stripped.startswith("#else") or stripped.startswith("#elseif"):
                if saved:
                    del scopes[saved[-1]:]
                continue
            if stripped.startswith("#endif"):
                if saved:
                    saved.pop()
                continue
            if stripped.startswith("//"):
                continue
            code = re.sub(r'"(?:\\.|[^"\\])*"', '""', stripped)
            for m in AVAILABLE_RE.finditer(code):
                pending = merged(pending, parse_available(m.group(1)))
            rest = AVAILABLE_RE.sub("", code)
            decl = DECL_RE.search(rest) if ("public " in rest or "open " in rest or "extension " in rest
                                            or re.match(r"^(case|associatedtype)\b", rest)) else None
            is_extension = re.search(r"\bextension\b", rest) is not None
            current = merged(scopes[-1], pending)
            if decl and not is_extension:
                declarations.setdefault(decl.group(2), []).append(current)
            if decl or is_extension or (rest and not rest.startswith("@")):
                opened_with = current
                pending = {}
            else:
                opened_with = scopes[-1]
            for ch in rest:
                if ch == "{":
                    scopes.append(opened_with)
                    opened_with = scopes[-1]
                elif ch == "}" and len(scopes) > 1:
                    scopes.pop()
                    opened_with = scopes[-1]


def symbol_graph_declarations(lib, module, triple, declarations):
    out = tempfile.mkdtemp(prefix="availability-check.")
    try:
        result = subprocess.run(
            ["swift-symbolgraph-extract", "-module-name", module, "-target", triple,
             "-I", lib, "-output-dir", out],
            capture_output=True, text=True)
        main = os.path.join(out, f"{module}.symbols.json")
        if result.returncode != 0 or not os.path.exists(main):
            fail(f"swift-symbolgraph-extract {module} failed: {result.stderr.strip()[:300]}")
        for name in os.listdir(out):
            with open(os.path.join(out, name), encoding="utf-8") as f:
                graph = json.load(f)
            for symbol in graph.get("symbols", []):
                title = re.sub(r"\(.*", "", symbol["names"]["title"]).strip()
                if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", title) or title == "init":
                    continue
                avail = {}
                for a in symbol.get("availability", []):
                    if a.get("domain") in PLATFORMS and "introduced" in a:
                        i = a["introduced"]
                        avail[a["domain"]] = (i.get("major", 0), i.get("minor", 0), i.get("patch", 0))
                declarations.setdefault(title, []).append(avail)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def public_interface(lib, module):
    """The module's public interface file and its target triple, if the toolchain has one."""
    folder = os.path.join(lib, f"{module}.swiftmodule")
    if not os.path.isdir(folder):
        return None, None
    for name in sorted(os.listdir(folder)):
        if name.endswith(".swiftinterface") and not name.endswith(".private.swiftinterface"):
            return os.path.join(folder, name), name[: -len(".swiftinterface")]
    return None, None


_DECLARATIONS = {}


def toolchain_declarations():
    """name -> [per-platform introduced versions of each public declaration], read once."""
    if _DECLARATIONS:
        return _DECLARATIONS
    lib = toolchain_lib()
    declarations = {}
    triple = None
    for module in INTERFACE_MODULES:
        path, found = public_interface(lib, module)
        if path:
            triple = triple or found
            interface_declarations(path, declarations)
    for module in SYMBOL_GRAPH_MODULES:
        if triple and os.path.isdir(os.path.join(lib, f"{module}.swiftmodule")):
            symbol_graph_declarations(lib, module, triple, declarations)
    if "InlineArray" not in declarations:
        fail("the toolchain's Swift interface declares no InlineArray: the parsing no longer fits it")
    _DECLARATIONS.update(declarations)
    return _DECLARATIONS


def newer_names(floors):
    """name -> {platform: introduced} for names newer than `floors` in every declaration."""
    newer = {}
    for name, avails in toolchain_declarations().items():
        for platform, floor in floors.items():
            oldest = min(a.get(platform, (0, 0, 0)) for a in avails)
            if oldest > floor:
                newer.setdefault(name, {})[platform] = oldest
    return newer


# MARK: - the package

def package_floors(root):
    with open(os.path.join(root, "Package.swift"), encoding="utf-8") as f:
        manifest = f.read()
    m = re.search(r"platforms:\s*\[(.*?)\]", manifest, re.S)
    if not m:
        fail("Package.swift declares no `platforms:`")
    floors = {}
    for platform, v in re.findall(r"\.(macOS|iOS|tvOS|watchOS|visionOS)\(\s*\.v([\d_]+)\s*\)", m.group(1)):
        floors[platform] = version(v.replace("_", "."))
    if not floors:
        fail("`platforms:` in Package.swift names no Apple platform")
    return floors


def swift_files(root):
    for top in ("Sources", "Tests", "tools", "Plugins"):
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in sorted(files):
                if name.endswith(".swift"):
                    yield os.path.join(folder, name)


TOKEN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d[\d._]*|[@#{}():,.]|\S")


def tokens(text):
    """(line, token) of the code in `text`: comments and string literals skipped."""
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += text[i] == "\n"
                    i += 1
        elif c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
            hashes = len(re.match(r"#*", text[i:]).group(0))
            i += hashes
            close = '"""' if text.startswith('"""', i) else '"'
            i += len(close)
            end = close + "#" * hashes
            while i < n and not text.startswith(end, i):
                if text[i] == "\\" and hashes == 0:
                    i += 1
                line += text[i] == "\n" if i < n else 0
                i += 1
            i += len(end)
        else:
            m = TOKEN_RE.match(text, i)
            yield line, m.group(0)
            i = m.end()


def availability_args(toks, k):
    """The `(...)` text after toks[k] and the index past it."""
    if k + 1 >= len(toks) or toks[k + 1][1] != "(":
        return "", k + 1
    depth, j, parts = 0, k + 1, []
    while j < len(toks):
        t = toks[j][1]
        depth += t == "("
        depth -= t == ")"
        if depth == 0:
            break
        if j > k + 1:
            parts.append(t)
        j += 1
    text = " ".join(parts).replace(" . ", ".").replace(" ,", ",")
    return re.sub(r"(\d) \. (\d)", r"\1.\2", text), j + 1


def check(root):
    floors = package_floors(root)
    newer = newer_names(floors)
    files = list(swift_files(root))
    parsed = {}
    declared = set()
    for path in files:
        with open(path, encoding="utf-8") as f:
            toks = list(tokens(f.read()))
        parsed[path] = toks
        for a, b in zip(toks, toks[1:]):
            if a[1] in DECL_KEYWORDS:
                declared.add(b[1])
    findings = []
    for path in files:
        toks = parsed[path]
        scopes = [dict(floors)]
        pending = {}
        k = 0
        while k < len(toks):
            line, t = toks[k]
            if t in ("@", "#") and k + 1 < len(toks) and toks[k + 1][1] == "available":
                args, after = availability_args(toks, k + 1)
                found = parse_available(args)
                if t == "#" and k > 0 and any(tok[1] == "guard" for tok in toks[max(0, k - 3):k]):
                    scopes[-1] = merged(scopes[-1], found)
                else:
                    pending = merged(pending, found)
                k = after
                continue
            if t == "{":
                scopes.append(merged(scopes[-1], pending))
                pending = {}
            elif t == "}":
                if len(scopes) > 1:
                    scopes.pop()
            elif t in newer and t not in declared:
                next_token = toks[k + 1][1] if k + 1 < len(toks) else ""
                if next_token != ":":  # an argument label, not a use
                    here = merged(scopes[-1], pending)
                    above = [f"{platform} {show(introduced)} (floor {show(here[platform])})"
                             for platform, introduced in newer[t].items()
                             if introduced > here.get(platform, (0, 0, 0))]
                    if above:
                        findings.append(f"{os.path.relpath(path, root)}:{line}: {t}: {', '.join(above)}")
            k += 1
    return floors, findings


def self_test(root):
    """A copy of the package's manifest and one planted file must be reported."""
    work = tempfile.mkdtemp(prefix="availability-check.")
    try:
        shutil.copy(os.path.join(root, "Package.swift"), work)
        os.makedirs(os.path.join(work, "Sources", "Planted"))
        with open(os.path.join(work, "Sources", "Planted", "Planted.swift"), "w", encoding="utf-8") as f:
            f.write('struct Group {\n    // InlineArray in a comment is no use\n'
                    '    var seqs = InlineArray<4, Int64>(repeating: 0)\n    let text = "InlineArray"\n}\n'
                    '@available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)\n'
                    'struct Guarded { var seqs = InlineArray<4, Int64>(repeating: 0) }\n')
        _, findings = check(work)
        if [f.split(": ")[0] for f in findings] != ["Sources/Planted/Planted.swift:3"]:
            print("availability-check: self-test failed: a planted InlineArray was reported as "
                  f"{findings or 'nothing'}", file=sys.stderr)
            return False
        print("availability-check: self-test: a planted InlineArray is reported; "
              "its comment, string and @available-guarded use are not")
        return True
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv):
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    run_self_test = False
    args = list(argv)
    while args:
        a = args.pop(0)
        if a in ("--help", "-h"):
            print(__doc__.strip())
            return 0
        if a == "--root" and args:
            root = args.pop(0)
        elif a == "--self-test":
            run_self_test = True
        else:
            print(f"availability-check: unknown argument {a!r} (see --help)", file=sys.stderr)
            return 2
    if run_self_test and not self_test(root):
        return 1
    floors, findings = check(root)
    floor_text = ", ".join(f"{p} {show(v)}" for p, v in floors.items())
    for finding in findings:
        print(finding)
    if findings:
        print(f"availability-check: {len(findings)} use(s) of APIs newer than the floors ({floor_text})",
              file=sys.stderr)
        return 1
    print(f"availability-check: no API newer than {floor_text}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
