#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_api_reference.py HTML_DIR INCLUDE_DIR [ADAPTER_HEADER...]: the API
reference Doxygen made from the headers (cmake/NavGuardAPIDocs.cmake) reads
as the headers do:

  - each header is a group titled "<file>: <its opening comment's first
    line>" (not the licence line above it), holding its sections;
  - every NG_API function has its own entry, showing its thread rule, and the
    statuses it returns when it returns ng_status;
  - each adapter header given is a group titled as above; the SDL2 adapter's
    every ng_sdl2_* function has its own entry; the Qt adapter's Navigator
    has a page on which every signal carrying a map shows its keys ("Keys:"
    or "same keys as");
  - Doxygen reported no warning.
"""
import glob
import html
import os
import re
import sys

html_dir, include_dir, adapter_headers = sys.argv[1], sys.argv[2], sys.argv[3:]
errors = []

entries = {}
for page in glob.glob(os.path.join(html_dir, "group__*.html")):
    text = open(page, encoding="utf-8").read()
    parts = re.split(r'<h2 class="memtitle">', text)
    for part in parts[1:]:
        m = re.match(r".*?</span>(\w+)\(\)</h2>", part, re.S)
        if m:
            entries[m.group(1)] = part

for header in sorted(glob.glob(os.path.join(include_dir, "*.h"))):
    name = os.path.basename(header)
    text = open(header, encoding="utf-8").read()
    opening = re.search(r"/\*\n \* \S+ \S+ (.*?)\n", text)
    if not opening:
        errors.append(f"{name}: no opening comment found")
        continue
    title = f"{name}: {opening.group(1).rstrip('.')}"
    stem = re.sub(r"\W", "_", name.rsplit(".", 1)[0])
    group = os.path.join(html_dir, f"group__{stem}.html")
    if not os.path.exists(group):
        errors.append(f"{name}: no group page {os.path.basename(group)}")
    else:
        shown = html.unescape(open(group, encoding="utf-8").read())
        if title not in shown:
            errors.append(f"{name}: the group is not titled {title!r}")
    for ret, fn in re.findall(r"^NG_API\s+(.*?)\b(ng_\w+)\s*\(", text, re.M):
        doc = entries.get(fn)
        if doc is None:
            errors.append(f"{fn} ({name}): no entry in the API reference")
            continue
        if "Thread rule" not in doc:
            errors.append(f"{fn}: its entry shows no thread rule")
        if "ng_status" in ret and "Returns" not in doc:
            errors.append(f"{fn}: its entry shows no statuses")

def member_docs(page):
    """name -> the HTML of its member entry, on one page."""
    docs = {}
    text = open(page, encoding="utf-8").read()
    for part in re.split(r'<h2 class="memtitle">', text)[1:]:
        m = re.match(r".*?</span>\s*(\w+)(?:\(\))?\s*</h2>", part, re.S)
        if m:
            docs.setdefault(m.group(1), part)
    return docs


for header in adapter_headers:
    name = os.path.basename(header)
    text = open(header, encoding="utf-8").read()
    opening = re.search(r"/\*\n \* \S+ \S+ (.*?)\n", text)
    stem = re.sub(r"\W", "_", name.rsplit(".", 1)[0])
    group = os.path.join(html_dir, f"group__{stem.replace('_', '__')}.html")   # Doxygen doubles _
    if not opening or not os.path.exists(group):
        errors.append(f"{name}: no group page {os.path.basename(group)}")
        continue
    title = f"{name}: {opening.group(1).rstrip('.')}"
    if title not in html.unescape(open(group, encoding="utf-8").read()):
        errors.append(f"{name}: the group is not titled {title!r}")
    for fn in re.findall(r"^[a-z][\w ]*?\**\b((?:ng_sdl2|ngj|ngm)_\w+)\s*\(", text, re.M):
        if fn not in entries:
            errors.append(f"{fn} ({name}): no entry in the API reference")
    if "class Navigator" in text:
        page = os.path.join(html_dir, "classnavguard_1_1qt6_1_1Navigator.html")
        if not os.path.exists(page):
            errors.append(f"{name}: no page for Navigator")
            continue
        docs = member_docs(page)
        signals = text[text.index("Q_SIGNALS:"):text.index("private Q_SLOTS:")]
        for sig in re.findall(r"void (\w+)\(const QVariantMap &", signals):
            doc = html.unescape(re.sub(r"<[^>]+>", "", docs.get(sig, "")))
            if not re.search(r"Keys:|same (keys|map) as", doc):
                errors.append(f"Navigator::{sig} ({name}): its entry shows no keys")

warnings = os.path.join(os.path.dirname(os.path.normpath(html_dir)), "doxygen-warnings.txt")
if os.path.exists(warnings) and open(warnings, encoding="utf-8").read().strip():
    errors.append("Doxygen warned:\n" + open(warnings, encoding="utf-8").read())

if errors:
    print("api_reference: FAIL\n  " + "\n  ".join(errors))
    sys.exit(1)
print(f"api_reference: {len(entries)} function entries, every NG_API function with its thread rule and statuses; group titles right; no Doxygen warning")
