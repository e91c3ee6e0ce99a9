#!/usr/bin/env python3
"""The install is complete: every Python module that a test imports, directly or through
the project's scripts it imports or runs, comes from a Debian package that
scripts/setup.sh installs (its PACKAGES list, not the --measure extras).

A module is found by reading the code (ast), not by running it, so a module imported only
inside a function counts too (scipy in the tuner was missed that way once). An import
inside `try: ... except ImportError:` whose handler does not raise again is optional and
does not count. Each third-party module is located with this interpreter (the one the
tests run with) and its Debian package asked of dpkg; a module that is not installed at
all, or whose package setup.sh does not list, fails the test with the file and line that
import it.

Usage: check_install.py [--setup scripts/setup.sh] [--self-test]
  --self-test  also check that the test fails when a package it needs is taken out of a
               copy of setup.sh (so the check itself can fail).
"""
import argparse
import ast
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE_DIRS = ("tests", "scripts")  # where the project's own Python lives


def setup_packages(path):
    """The packages of the PACKAGES=( ... ) array in setup.sh, comments dropped."""
    text = open(path).read()
    m = re.search(r"^PACKAGES=\((.*?)^\)", text, re.S | re.M)
    if not m:
        sys.exit(f"check_install: {path}: no PACKAGES=( ... ) array")
    names = []
    for line in m.group(1).splitlines():
        line = line.split("#", 1)[0].strip()
        names += line.split()
    return set(names)


def project_python_files():
    """Every .py file of the project under tests/ and scripts/ (node_modules left out)."""
    out = []
    for d in SOURCE_DIRS:
        for dirpath, dirnames, files in os.walk(os.path.join(ROOT, d)):
            dirnames[:] = [x for x in dirnames if x not in ("node_modules", "__pycache__")]
            out += [os.path.join(dirpath, f) for f in files if f.endswith(".py")]
    return sorted(out)


def local_module_index(files):
    """Map of importable names to project files: the dotted name from the repository root
    (`scripts.data.read_dataset`, a package by its folder: `scripts.data`), and the bare
    file stem or folder name (a test imports a module beside it as `uci_session`)."""
    index = {}
    for f in files:
        rel = os.path.splitext(os.path.relpath(f, ROOT))[0].split(os.sep)
        if rel[-1] == "__init__":
            rel = rel[:-1]
        index.setdefault(".".join(rel), f)
        index.setdefault(rel[-1], f)
    return index


def dotted(f):
    """The module name of a project file run with -m: scripts/data/tune_eval.py is
    scripts.data.tune_eval."""
    return os.path.splitext(os.path.relpath(f, ROOT))[0].replace(os.sep, ".")


def entry_files(files):
    """The tests' Python files, and the project scripts a test or CMakeLists.txt names (by
    file name, or by module name for `python3 -m`)."""
    tests = [f for f in files if os.sep + "tests" + os.sep in f]
    texts = [open(os.path.join(ROOT, "CMakeLists.txt")).read()]
    for dirpath, dirnames, names in os.walk(os.path.join(ROOT, "tests")):
        dirnames[:] = [x for x in dirnames if x != "node_modules"]
        for n in names:
            if n.endswith((".py", ".sh", ".c", ".js")):
                texts.append(open(os.path.join(dirpath, n), errors="replace").read())
    text = "\n".join(texts)
    named = [f for f in files if os.sep + "scripts" + os.sep in f
             and (re.search(r"\b" + re.escape(os.path.basename(f)) + r"\b", text)
                  or re.search(r"\b" + re.escape(dotted(f)) + r"\b", text))]
    return sorted(set(tests + named))


def optional_try(node):
    """Whether a try statement makes its imports optional: a handler catches ImportError
    (or something wider) and does not raise again."""
    for h in node.handlers:
        names = []
        if h.type is None:
            names = ["*"]
        elif isinstance(h.type, ast.Tuple):
            names = [getattr(e, "id", getattr(e, "attr", "")) for e in h.type.elts]
        else:
            names = [getattr(h.type, "id", getattr(h.type, "attr", ""))]
        wide = any(n in ("*", "ImportError", "ModuleNotFoundError", "Exception", "BaseException")
                   for n in names)
        reraises = any(isinstance(s, ast.Raise) for s in ast.walk(ast.Module(body=h.body, type_ignores=[])))
        if wide and not reraises:
            return True
    return False


def with_parents(name):
    """A dotted module name and the packages an import of it loads: a.b.c, a, a.b."""
    parts = name.split(".")
    return [name] + [".".join(parts[:i]) for i in range(1, len(parts))]


def imports_of(path):
    """(module names, line) of every import in the file that is not optional: the dotted
    name first, then every name it may load (its parent packages; for `from M import n`
    also M.n, which may be a module)."""
    tree = ast.parse(open(path).read(), path)
    found = []

    def visit(node, optional):
        if isinstance(node, ast.Try):
            opt = optional or optional_try(node)
            for s in node.body:
                visit(s, opt)
            for s in node.handlers + node.orelse + node.finalbody:
                visit(s, optional)
            return
        if isinstance(node, ast.Import) and not optional:
            found.extend((with_parents(a.name), node.lineno) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not optional and node.level == 0 and node.module:
            found.append((with_parents(node.module) + [node.module + "." + a.name for a in node.names],
                          node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, optional)

    visit(tree, False)
    return found


def debian_package(module):
    """The Debian package providing an importable module, or None with the reason."""
    spec = importlib.util.find_spec(module)
    if spec is None:
        return None, "not installed for " + sys.executable
    path = spec.origin
    if spec.submodule_search_locations:
        path = list(spec.submodule_search_locations)[0]
    if not path or path in ("built-in", "frozen"):
        return "(built-in)", ""
    r = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
    if r.returncode != 0:
        return None, f"{path} belongs to no Debian package (installed by hand?)"
    return r.stdout.split(":", 1)[0].strip(), ""


def check(setup_path, quiet=False):
    """Failures as lines 'file:line: message'; empty when the install is complete."""
    packages = setup_packages(setup_path)
    files = project_python_files()
    local = local_module_index(files)
    stdlib = set(sys.stdlib_module_names) | set(sys.builtin_module_names) | {"__future__"}
    todo, seen, needed = entry_files(files), set(), {}
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        for names, line in imports_of(f):
            mod = names[0].split(".")[0]
            if mod in local:
                todo.extend(local[n] for n in names if n in local)
            elif mod not in stdlib:
                needed.setdefault(mod, (os.path.relpath(f, ROOT), line))
    failures = []
    for mod, (f, line) in sorted(needed.items()):
        pkg, why = debian_package(mod)
        if pkg is None:
            failures.append(f"{f}:{line}: module '{mod}' {why}; add its Debian package to "
                            f"PACKAGES in {os.path.relpath(setup_path, ROOT)}")
        elif pkg != "(built-in)" and pkg not in packages:
            failures.append(f"{f}:{line}: module '{mod}' comes from Debian package '{pkg}', "
                            f"which PACKAGES in {os.path.relpath(setup_path, ROOT)} does not install")
        elif not quiet:
            print(f"ok: {mod} ({pkg}) first imported at {f}:{line}")
    if not quiet:
        print(f"{len(seen)} Python files read from {len(entry_files(files))} test entry points")
    return failures, needed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--setup", default=os.path.join(ROOT, "scripts", "setup.sh"))
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    failures, needed = check(args.setup)
    for f in failures:
        print("FAIL " + f)
    bad = bool(failures)
    if args.self_test and needed:
        # Each needed module's package taken out of a copy of setup.sh must fail the check.
        text = open(args.setup).read()
        for mod in sorted(needed):
            pkg, _ = debian_package(mod)
            if not pkg or pkg == "(built-in)":
                continue
            cut = re.sub(r"^\s*" + re.escape(pkg) + r"\b.*$\n", "", text, flags=re.M)
            with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as tmp:
                tmp.write(cut)
            try:
                cut_failures, _ = check(tmp.name, quiet=True)
            finally:
                os.unlink(tmp.name)
            if any(f"'{mod}'" in f for f in cut_failures):
                print(f"self-test ok: without {pkg} the check fails on '{mod}'")
            else:
                print(f"FAIL self-test: taking {pkg} out of setup.sh did not fail the check")
                bad = True
    print("1 passed, 0 failed" if not bad else "0 passed, 1 failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
