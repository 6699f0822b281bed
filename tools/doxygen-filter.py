#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Doxygen INPUT_FILTER for include/navguard/*.h: `doxygen-filter.py FILE`
prints FILE as Doxygen should read it, with the same number of lines (so the
reference's line numbers are the header's). The headers keep their plain C
style; this turns their conventions into Doxygen's:

  - the file's opening comment      -> @file, its first line the brief;
  - a section banner                -> a group (@defgroup ... @{), closed at
    /* ----- */                        the next banner or the end of the file;
    /* Title. More text */            declarations before the first banner
    /* ----- */                        form a group named after the file;
  - a comment right above a declaration (no blank line between) -> its doc
    comment; a function's leading [owner], [any-thread], [callback-safe] tag
    becomes a "Thread rule" paragraph, its "Returns NG_OK, ..." sentence a
    "Returns" paragraph, and its sentences about who owns what (copied, valid
    until, free it with, static storage, ...) an "Ownership" paragraph;
  - declarations that follow another under one comment -> @copydoc of the
    first (ng_clock_set / ng_clock_advance, the ng_*_name functions);
  - a comment after a declaration on the same line -> a member doc (/**<);
  - an example or a table indented in a comment -> @verbatim ... @endverbatim;
  - <word> placeholders and NG_X_* wildcards -> escaped, not HTML or emphasis.

New functions, fields and sections written in the headers' style are picked up
with no change here.
"""
import glob
import re
import sys

BANNER = re.compile(r"^/\* -{20,} \*/\s*$")
DECL = re.compile(r"^(NG_API\b|typedef\b|struct\b|enum\b|static inline\b|#define NG_|"
                  r"\s+[A-Za-z_][\w \*]*[\w\*]\s*\(?\**\w+\)?(\(|\[|;|,| =))")
FUNC = re.compile(r"^NG_API\b.*?\b(ng_\w+)\s*\(")
TAG = re.compile(r"^\[(owner|any-thread)([^\]]*)\]\s*")
OWNERSHIP = re.compile(r"copied|copies|valid until|valid during|valid from|stays? valid|"
                       r"owned by|owns|ownership|free it with|ng_free|static storage|"
                       r"read during the call|must stay valid|allocated for the caller|"
                       r"caller keeps|outlive", re.I)

THREAD_WORDS = {
    "owner": "the context's owner thread only (another thread gets NG_E_THREAD)",
    "any-thread": "any thread, at any time",
    "callback-safe": "may be called from inside a delegate callback",
    "async-signal-safe": "may be called from a signal handler (it calls async-signal-safe functions only)",
}


# The names the headers declare (filled by main): linked where prose names
# them (Doxygen links a macro, type or variable only when written #NAME).
KNOWN = set()
NAME = re.compile(r"(?<![\w#\\])(NG_[A-Z0-9_]+|ng_[a-z0-9_]+)(?![\w(\\*])")


def link(text):
    parts = text.split("`")
    for k in range(0, len(parts), 2):      # outside `code spans`
        parts[k] = NAME.sub(lambda m: "#" + m.group(1) if m.group(1) in KNOWN else m.group(1), parts[k])
    return "`".join(parts)


def escape(text):
    """Doxygen markup in plain prose: <word> is not an HTML tag, X_* is not
    emphasis, a lone @ or \\ is not a command; declared names are links."""
    text = re.sub(r"<([A-Za-z][^<>\n]*)>", r"\\<\1\\>", text)
    text = re.sub(r"(\w)\*", r"\1\\*", text)
    text = re.sub(r"(^|\s)([@\\])", r"\1\\\2", text)
    return link(text)


def comment_body(lines):
    """The text lines of a C comment block (list of raw lines), the comment
    markers and the leading ' * ' removed; returns (texts, first_prefix)."""
    texts = []
    for i, raw in enumerate(lines):
        s = raw
        if i == 0:
            s = s[s.index("/*") + 2:]
        if s.rstrip().endswith("*/"):
            s = s.rstrip()[:-2]
        if i > 0:
            s = re.sub(r"^\s*\* ?", "", s, count=1) if re.match(r"^\s*\*(\s|$)", s) else s.strip()
        texts.append(s.rstrip())
    if texts and texts[0].startswith(" "):
        texts[0] = texts[0][1:]
    return texts


def code_blocks(texts):
    """Escape the prose, and mark as code the lines indented by 2+ spaces that
    follow a line ending with ':' or 'e.g.' (an example, a table): @verbatim at
    the end of the line before, @endverbatim at the start of the line after, so
    the line count stays."""
    out = [escape(t) for t in texts]
    indented = lambda t: re.match(r"^ {2,}\S", t) and not re.match(r"^\s*- ", t)
    i = 1
    while i < len(texts):
        if indented(texts[i]) and re.search(r"(:|e\.g\.,?)$", texts[i - 1].rstrip()):
            j = i
            while j < len(texts) and (indented(texts[j]) or
                                      (not texts[j].strip() and j + 1 < len(texts) and indented(texts[j + 1]))):
                out[j] = texts[j]          # code as written
                j += 1
            out[i - 1] += " @verbatim"
            if j < len(texts):
                out[j] = "@endverbatim " + out[j]
            else:
                out[j - 1] += " @endverbatim"
            i = j
        i += 1
    return out


def split_sentences(text):
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch in ".:" and depth == 0 and k + 1 < len(text) and text[k + 1] == " " \
                and k + 2 < len(text) and (text[k + 2].isupper() or text[k + 2] in "`*("):
            if ch == "." and text[max(0, k - 3):k + 1] in ("e.g.", "i.e."):
                continue
            parts.append(text[start:k + 1].strip())
            start = k + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def alias_arg(text):
    """Text as the argument of a one-argument alias (ALIASES in the Doxyfile):
    commas and braces escaped."""
    return escape(text).replace(",", "\\,").replace("{", "&#123;").replace("}", "&#125;")


def function_doc(texts):
    """A function's comment as one Doxygen block of len(texts) lines: the
    text on the first line, its parts as the Doxyfile's aliases
    (@threadrule, @ownership, @statuses: a titled paragraph each, expanded
    to several lines by Doxygen), then empty lines."""
    flat = " ".join(t.strip() for t in texts if t.strip())
    if re.search(r"^ {2,}\S", "\n".join(texts[1:]), re.M):
        return None  # a code sample or a table in it: keep the text as written
    thread = None
    m = TAG.match(flat)
    if m:
        tags = [m.group(1)] + [t.strip() for t in m.group(2).split(",") if t.strip()]
        thread = "<b>%s</b> %s." % (m.group(0).strip(), "; ".join(THREAD_WORDS.get(t, t) for t in tags))
        flat = flat[m.end():]
    returns, ownership, body = [], [], []
    for k, sentence in enumerate(split_sentences(flat)):
        if k == 0:
            body.append(sentence)        # the summary (the brief) stays first
        elif re.match(r"^Returns\b", sentence) and not returns:
            returns.append(re.sub(r"^Returns:?\s*", "", sentence))
        elif OWNERSHIP.search(sentence):
            ownership.append(sentence)
        else:
            body.append(sentence)
    line = escape(" ".join(body))
    if thread:
        line += " @threadrule{%s}" % thread.replace(",", "\\,")
    if ownership:
        line += " @ownership{%s}" % alias_arg(" ".join(ownership))
    if returns:
        line += " @statuses{%s}" % alias_arg(returns[0])
    return [line.strip()] + [""] * (len(texts) - 1)


def convert_comment(block, nxt, is_func):
    """block: raw lines of a standalone comment; nxt: the next line."""
    texts = comment_body(block)
    indent = re.match(r"^\s*", block[0]).group(0)
    doc = function_doc(texts) if is_func else None
    if doc is None:
        m = TAG.match(texts[0]) if is_func else None
        if m:   # the thread rule last: a paragraph runs to the comment's end
            texts = [texts[0][m.end():]] + texts[1:]
        doc = code_blocks(texts)
        if m:
            tags = [m.group(1)] + [t.strip() for t in m.group(2).split(",") if t.strip()]
            doc[-1] += " @threadrule{<b>%s</b> %s.}" % (
                m.group(0).strip().replace(",", "\\,"), "; ".join(THREAD_WORDS.get(t, t) for t in tags))
    out = []
    for i, t in enumerate(doc):
        first = i == 0
        last = i == len(doc) - 1
        line = (indent + "/** " if first else indent + " * ") + t
        if last:
            line += " */"
        out.append(line)
    return out


def main(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    directory = path.rsplit("/", 1)[0] if "/" in path else "."
    for header in glob.glob(directory + "/*.h"):
        with open(header, encoding="utf-8") as f:
            text = f.read()
        KNOWN.update(re.findall(r"^#define (NG_\w+)", text, re.M))
        KNOWN.update(re.findall(r"^(?:NG_API|static inline)\b[^;(]*?\b(ng_\w+)\s*\(", text, re.M))
        KNOWN.update(re.findall(r"^(?:typedef\b.*?|\}\s*)\b(ng_\w+);", text, re.M))
        KNOWN.update(re.findall(r"^\s+(NG_\w+)\s*=", text, re.M))
    stem = re.sub(r"\W", "_", path.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    out = []
    i = 0
    group_open = False
    seen_file_comment = False
    last_doc_func = None     # the function a comment documented
    slug_seen = set()

    def slug(title):
        s = stem + "_" + re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")
        while s in slug_seen:
            s += "_"
        slug_seen.add(s)
        return s

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()

        # The licence line before it stays a plain comment.
        if not seen_file_comment and re.match(r"^/\*\s*SPDX-License-Identifier:.*\*/$", stripped):
            out.append(line)
            i += 1
            continue

        # The file's opening comment.
        if not seen_file_comment and stripped.startswith("/*"):
            j = i
            while "*/" not in lines[j]:
                j += 1
            block = lines[i:j + 1]
            texts = comment_body(block)
            head = texts[0] if texts[0].strip() else texts[1]
            brief = re.sub(r"^\S+\s+\S+\s+", "", head.strip())   # "navguard.h — NavGuard host API."
            file_title = brief.rstrip(".")
            body = code_blocks(texts)
            body[0 if texts[0].strip() else 1] = "@file\n@brief " + escape(brief)
            joined = "\n".join(body).split("\n")
            # keep the count: "@file" shares the first line
            joined[0] = joined[0] + " " + joined[1]
            del joined[1]
            out.append("/** " + joined[0])
            out.extend(" * " + t for t in joined[1:-1])
            out.append(" * " + joined[-1] + " */" if len(joined) > 1 else "")
            if len(joined) == 1:
                out[-2] = out[-2] + " */"
                out.pop()
            seen_file_comment = True
            i = j + 1
            # The file's group, holding its sections (and the declarations
            # before the first banner), defined on the next line.
            out.append("/** @defgroup %s %s: %s */ %s" % (stem, path.rsplit("/", 1)[-1], escape(file_title), lines[i]))
            i += 1
            rest = lines[i:]
            first_banner = next((k for k, l in enumerate(rest) if BANNER.match(l)), len(rest))
            for k in range(i, i + first_banner):
                if re.match(r"^(/\*|#define NG_|typedef|struct|NG_API|static inline|enum)", lines[k]):
                    lines[k] = "/** @addtogroup %s */ /** @{ */ %s" % (stem, lines[k])
                    group_open = True
                    break
            continue

        # A section banner: /* --- */ /* title lines */ /* --- */
        if BANNER.match(line):
            j = i + 1
            while j < len(lines) and not BANNER.match(lines[j]):
                j += 1
            titles = [re.sub(r"^/\*\s?|\s*\*/\s*$", "", l).strip() for l in lines[i + 1:j]]
            text = " ".join(t for t in titles if t)
            m = re.match(r"^(.*?)\.\s+(.*)$", text)
            title, desc = (m.group(1), m.group(2)) if m else (text, "")
            # A short title for the index ("Holds", "Guard chain"); the whole
            # heading stays as the description.
            short = re.split(r"\s*[(:]", title)[0].strip()
            if short and short != title:
                desc = (title + (". " + desc if desc else "")).strip()
                title = short
            count = j - i + 1
            # A title runs to the end of its line, and so does @ingroup.
            block = ["/** @defgroup %s %s" % (slug(title), escape(title)), " * @ingroup " + stem]
            texts = [escape(desc)] if desc else []
            while len(block) + len(texts) < count:
                texts.append("")
            block += [" * " + t for t in texts]
            block[-1] += " @{ */"
            if group_open:
                block[0] = "/** @} */ " + block[0]
            out.extend(block)
            group_open = True
            i = j + 1
            continue

        # A standalone comment.
        if stripped.startswith("/*") and not re.match(r"^/\*\s*-{2,}", stripped):
            j = i
            while "*/" not in lines[j]:
                j += 1
            nxt = lines[j + 1] if j + 1 < len(lines) else ""
            if nxt.strip() and DECL.match(nxt) and not nxt.lstrip().startswith(("#if", "#endif", "}")):
                fm = FUNC.match(nxt)
                out.extend(convert_comment(lines[i:j + 1], nxt, bool(fm)))
                last_doc_func = fm.group(1) if fm else None
                i = j + 1
                # The declaration(s) documented by it.
                if fm:
                    out.append(lines[i])
                    while not lines[i].rstrip().endswith(";"):
                        i += 1
                        out.append(lines[i])
                    i += 1
                    while i < len(lines) and FUNC.match(lines[i]):
                        out.append("/** @copydoc %s */ %s" % (last_doc_func, lines[i]))
                        while not lines[i].rstrip().endswith(";"):
                            i += 1
                            out.append(lines[i])
                        i += 1
                continue
            out.extend(lines[i:j + 1])
            i = j + 1
            continue

        # A trailing comment after code: a member doc.
        m = re.match(r"^(\s*\S.*?)/\*(?!\*)(.*)$", line)
        if m and not stripped.startswith(("/*", "*")) and '"' not in m.group(1):
            rest = m.group(2)
            out.append(m.group(1) + "/**<" + escape(rest.replace("*/", "\x00")).replace("\x00", "*/"))
            if "*/" not in rest:
                i += 1
                while i < len(lines) and "*/" not in lines[i]:
                    out.append(escape(lines[i]))
                    i += 1
                if i < len(lines):
                    out.append(escape(lines[i].replace("*/", "\x00")).replace("\x00", "*/"))
            i += 1
            continue

        # A C++ header's last group closes inside its namespace (Doxygen
        # warns of a group left open across the closing brace).
        if group_open and re.match(r"^\}\s*//\s*namespace\b", line):
            line = "/** @} */ " + line
            group_open = False

        out.append(line)
        i += 1

    if group_open:
        out[-1] = out[-1] + "/** @} */" if out[-1].strip() == "" else out[-1] + " /** @} */"
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
