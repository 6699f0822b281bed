#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/check-comment-files.py [DIR]: lists the file names that the source
comments of DIR (default: the tree this script is in) name and that no file
git tracks has, and exits 1 when there are any (0 when every one exists).

A comment names a file when it writes a word ending in a source or document
suffix (Engine.swift, crash_dump.c, docs/trace-format.md). A name with a slash
must be a tracked path, relative to the tree or to the commenting file's
folder, or end one (NavGuardTrace/TraceCalls.swift); a bare name must be the last
part of some tracked path. Names that are not in the tree on purpose
(generated into the build directory, written by a user) are listed in
ALLOWED below, each with its reason. Only files git tracks are read.
"""
import os
import re
import subprocess
import sys

SOURCE_SUFFIXES = ('.c', '.h', '.cpp', '.hpp', '.swift', '.cmake', '.py', '.sh', '.qml')
# What a named file may end with.
NAMED = r'(?:swift|c|h|cpp|hpp|cmake|py|sh|md|map|modulemap|qml)'
WORD = re.compile(r'(?<![\w./@$<{*-])((?:[\w+-]+/)*[\w+-]+\.' + NAMED + r')(?![\w/*])')

# Named in comments, and not tracked on purpose. (A file the build makes is
# found by itself: its name stands in a build file's code, below.)
ALLOWED = {
    'moc_navguard_qt6.cpp',  # written by Qt's moc (AUTOMOC) into the build directory
    'a.h', 'b.h', 'x.c', 'y.cpp',  # cmake/CheckInitMacros.cmake's usage line: any names
}
BUILD_FILES = ('CMakeLists.txt', 'Makefile')
BUILD_SUFFIXES = ('.cmake', '.py', '.sh')


def comments(path, text):
    """The comment text of one source file (line and block comments)."""
    if path.endswith(('.swift', '.c', '.h', '.cpp', '.hpp', '.qml')):
        out = re.findall(r'//[^\n]*', text)
        out += re.findall(r'/\*.*?\*/', text, re.S)
        return out
    return re.findall(r'#[^\n]*', text)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = subprocess.run(['git', '-C', root, 'ls-files', '-z'], check=True,
                           capture_output=True).stdout.decode().split('\0')
    files = [f for f in files if f]
    tracked = set(files)
    basenames = {os.path.basename(f) for f in files}
    # What the build writes: names in the code (not the comments) of build files.
    made = set()
    for f in files:
        if os.path.basename(f) in BUILD_FILES or f.endswith(BUILD_SUFFIXES):
            try:
                with open(os.path.join(root, f), encoding='utf-8') as fh:
                    code = re.sub(r'#[^\n]*', '', fh.read())
            except (UnicodeDecodeError, FileNotFoundError):
                continue
            made.update(re.findall(r'[\w+-]+\.' + NAMED + r'\b', code))
    missing = []
    checked = 0
    for f in files:
        base = os.path.basename(f)
        if not (f.endswith(SOURCE_SUFFIXES) or base in ('CMakeLists.txt', 'Makefile')):
            continue
        # Copies of older releases' headers and sources are kept as they were.
        if '/abi-' in f or f.startswith('fuzz/crashers/'):
            continue
        try:
            with open(os.path.join(root, f), encoding='utf-8') as fh:
                text = fh.read()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        for c in comments(f, text):
            for name in WORD.findall(c):
                checked += 1
                base = os.path.basename(name)
                if base in ALLOWED or base in made or name + '.in' in tracked or \
                        any(t.endswith('/' + name + '.in') for t in tracked):
                    continue
                if '/' in name:
                    here = os.path.normpath(os.path.join(os.path.dirname(f), name))
                    if name in tracked or here in tracked or any(t.endswith('/' + name) for t in tracked):
                        continue
                    # A folder's path followed by a file name of it.
                    if os.path.isfile(os.path.join(root, name)):
                        continue
                elif name in basenames:
                    continue
                missing.append((f, name))
    for f, name in sorted(set(missing)):
        print(f'{f}: names {name}, which is not in the tree')
    if missing:
        print(f'check-comment-files: {len(set(missing))} names of missing files in source comments', file=sys.stderr)
        return 1
    print(f'check-comment-files: every one of {checked} file names in source comments exists', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
