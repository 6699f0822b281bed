# SPDX-License-Identifier: Apache-2.0
"""Every subcommand and option the navguard tool's --help shows is in its
manual page (docs/navguard.1), so the page cannot fall behind the tool.

    check_manual.py <navguard binary> <navguard.1>

Walks `navguard --help`, then each subcommand's (and their subcommands'),
and looks for each option as roff writes it (\\-\\-name) and each
subcommand's name. Exits 1 listing what the page lacks."""
import re
import subprocess
import sys


def help_text(tool, path):
    out = subprocess.run([tool, *path, "--help"], capture_output=True, text=True, check=True)
    return out.stdout


def walk(tool, path, found):
    text = help_text(tool, path)
    for opt in re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", text):
        if opt not in ("help", "version"):
            found.setdefault(("option", opt), " ".join(path) or "navguard")
    sub = re.search(r"^SUBCOMMANDS:\n((?:  .*\n|\n)*)", text, re.M)
    if not sub:
        return
    for name in re.findall(r"^  ([a-z][a-z-]*)\s", sub.group(1), re.M):
        if name == "help":
            continue
        found.setdefault(("subcommand", name), " ".join(path) or "navguard")
        walk(tool, path + [name], found)


def main():
    tool, page = sys.argv[1], sys.argv[2]
    roff = open(page, encoding="utf-8").read()
    plain = roff.replace("\\-", "-")
    found = {}
    walk(tool, [], found)
    missing = []
    for (kind, name), where in sorted(found.items()):
        if kind == "option" and f"--{name}" not in plain:
            missing.append(f"option --{name} (of '{where}')")
        if kind == "subcommand" and not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", plain):
            missing.append(f"subcommand {name} (of '{where}')")
    if missing:
        print(f"{page} lacks what `{tool} ... --help` shows:")
        for m in missing:
            print("  " + m)
        return 1
    print(f"{page}: all {len(found)} subcommands and options of the tool's help are in it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
