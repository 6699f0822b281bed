#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""status_masks.py HEADER OUT: write OUT, a C header with one mask per
function of HEADER (include/navguard/navguard.h) that returns ng_status:

    #define NGF_STATUSES_ng_hold_end (NGF_STATUS_BIT(NG_OK) | ...)

the statuses its comment's "Returns ..." sentence lists. fuzz_api.c checks
every call's status against them, so the harness and the header cannot
drift apart: the build stops here, naming the function, when a comment has
no Returns sentence, names a status that NG_STATUS_MAP does not have, or
says something in the list this script cannot read, or leaves out a status
the function's own declaration implies: NG_E_THREAD for an [owner] function
(the header's thread rule), NG_E_HANDLE for one that takes a context.

A Returns sentence lists status names, separated by commas, "and", "or" and
"plus"; "the statuses of ng_other" adds ng_other's list. Text in parentheses
explains a status and is skipped, but a status it names must be listed too.
Declarations that follow one another with no line between share the comment
above the first (ng_clock_set and ng_clock_advance).
"""
import re
import sys

NAME = re.compile(r"\bNG_[A-Z0-9_]+\b")
DECL = re.compile(r"^NG_API\s+(.*?)\b(ng_\w+)\s*\(")
OTHER = re.compile(r"^the statuses of (ng_\w+)$")


class HeaderError(Exception):
    pass


def status_names(text):
    """NG_OK, NG_E_NULL, ... in NG_STATUS_MAP's order."""
    m = re.search(r"#define NG_STATUS_MAP\(XX\)((?:.*\\\n)*.*)", text)
    if not m:
        raise HeaderError("no NG_STATUS_MAP table")
    return re.findall(r"XX\((NG_\w+)\s*,", m.group(1))


def comment_text(block):
    """The words of a /* ... */ block, on one line."""
    body = " ".join(re.sub(r"^\s*(/\*+|\*/|\*)?", "", line) for line in block)
    return " ".join(body.replace("*/", " ").split())


def functions(lines):
    """(name, line number, comment text or None, declaration) of each
    ng_status function."""
    out = []
    comment, comment_end = None, -2     # the last comment block, its last line
    shared = None                       # the comment of the declaration just before
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("/*"):
            start = i
            while "*/" not in lines[i]:
                i += 1
            comment, comment_end = comment_text(lines[start:i + 1]), i
            shared = None
            i += 1
            continue
        m = DECL.match(line)
        if m:
            first = i
            own = comment if comment_end == i - 1 else shared
            while not lines[i].rstrip().endswith(";"):
                i += 1
            if m.group(1).strip() == "ng_status":
                out.append((m.group(2), first + 1, own, " ".join(lines[first:i + 1])))
            # The next declaration, if it follows at once, shares this comment.
            shared = own
            comment_end = -2
            i += 1
            continue
        shared = None
        i += 1
    return out


def returns_sentence(comment):
    """The "Returns ..." sentence without its first word, or None."""
    m = re.search(r"(?:^|[.:] )Returns\b:?\s*", comment)
    if not m:
        return None
    depth, k = 0, m.end()
    while k < len(comment):
        c = comment[k]
        depth += c == "("
        depth -= c == ")"
        if c == "." and depth == 0 and (k + 1 == len(comment) or comment[k + 1] == " "):
            break
        k += 1
    return comment[m.end():k]


def split_parens(text):
    """(text outside parentheses, text inside them)."""
    outside, inside, depth = [], [], 0
    for c in text:
        if c == "(":
            depth += 1
        (inside if depth else outside).append(c)
        if c == ")":
            depth = max(0, depth - 1)
    return "".join(outside), "".join(inside)


def parse(header):
    with open(header, encoding="utf-8") as f:
        text = f.read()
    known = status_names(text)
    errors, lists = [], {}
    for name, line, comment, decl in functions(text.split("\n")):
        where = "%s:%d: %s" % (header, line, name)
        sentence = returns_sentence(comment) if comment else None
        if sentence is None:
            errors.append("%s: its comment has no \"Returns NG_OK, ...\" sentence listing the statuses it "
                          "returns" % where)
            continue
        outside, inside = split_parens(sentence)
        items = [p.strip() for p in re.split(r",|\band\b|\bor\b|\bplus\b", outside)]
        statuses, others = set(), []
        for item in filter(None, items):
            other = OTHER.match(item)
            if other:
                others.append(other.group(1))
            elif NAME.fullmatch(item) and item in known:
                statuses.add(item)
            elif NAME.fullmatch(item):
                errors.append("%s: \"%s\" in its Returns list is not a status (NG_STATUS_MAP)" % (where, item))
            else:
                errors.append("%s: cannot read \"%s\" in its Returns list (write status names, or \"the "
                              "statuses of ng_other\", and explain in parentheses)" % (where, item))
        implied = (["NG_E_THREAD"] if comment.startswith("[owner") else []) + \
            (["NG_E_HANDLE"] if re.search(r"\(\s*ng_context \*ctx\b", decl) else [])
        lists[name] = (where, statuses, others, [n for n in NAME.findall(inside) if n in known], implied)
    masks = {}

    def resolve(name, seen=()):
        if name in masks:
            return masks[name]
        where, statuses, others, mentioned, implied = lists[name]
        result = set(statuses)
        for other in others:
            if other not in lists:
                errors.append("%s: \"the statuses of %s\": no such function returning ng_status" % (where, other))
            elif other in seen:
                errors.append("%s: \"the statuses of %s\" goes round in a circle" % (where, other))
            else:
                result |= resolve(other, seen + (name,))
        for n in mentioned:
            if n not in result:
                errors.append("%s: %s is named in parentheses in its Returns list but not listed" % (where, n))
        for n in implied:
            if n not in result:
                why = "an [owner] function" if n == "NG_E_THREAD" else "it takes a context"
                errors.append("%s: its Returns list lacks %s (%s)" % (where, n, why))
        masks[name] = result
        return result

    for name in lists:
        resolve(name)
    if errors:
        line = lambda e: int(re.search(r":(\d+):", e).group(1)) if re.search(r":(\d+):", e) else 0
        raise HeaderError("\n".join(sorted(set(errors), key=lambda e: (line(e), e))))
    return known, masks


def write(out, header, known, masks):
    rows = []
    for name, statuses in masks.items():
        bits = " | ".join("NGF_STATUS_BIT(%s)" % s for s in known if s in statuses)
        rows.append("#define NGF_STATUSES_%s (%s)" % (name, bits))
    text = """/* Generated by fuzz/status_masks.py from %s: do not edit.
 * NGF_STATUSES_<function>: the statuses the header's comment of <function>
 * lists after "Returns", one bit per status. */
#ifndef NGF_STATUS_MASKS_H
#define NGF_STATUS_MASKS_H
#include <navguard/navguard.h>

#define NGF_STATUS_BIT(status) (1u << (status))
_Static_assert(NG_STATUS_COUNT <= 32, "a status mask is a uint32_t");

%s

#endif
""" % (header, "\n".join(rows))
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: status_masks.py HEADER OUT\n")
        return 2
    try:
        known, masks = parse(argv[1])
    except HeaderError as e:
        sys.stderr.write("status_masks.py: the fuzz harness's status masks cannot be generated:\n%s\n" % e)
        return 1
    write(argv[2], argv[1], known, masks)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
