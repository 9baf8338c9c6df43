#!/usr/bin/env python3
"""Prints "KEY FILE" for each C++ source of the product in compile_commands.json.

KEY changes when anything clang-tidy's verdict on FILE depends on in this repository changes:
.clang-tidy, the file's compile command (with the checkout's path left out), the file, and
every project header it includes, directly or through other headers. A file whose key passed
once need not be checked again.
"""
import hashlib
import json
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def main():
    root, compile_commands = sys.argv[1], sys.argv[2]
    with open(compile_commands) as f:
        entries = json.load(f)
    with open(os.path.join(root, '.clang-tidy'), 'rb') as f:
        config = f.read()
    texts = {}

    def text(rel):
        if rel not in texts:
            path = os.path.join(root, rel)
            texts[rel] = open(path, 'rb').read() if os.path.isfile(path) else None
        return texts[rel]

    def closure(rel):
        seen, todo = set(), [rel]
        while todo:
            cur = todo.pop()
            if cur in seen or text(cur) is None:
                continue
            seen.add(cur)
            todo.extend(INCLUDE.findall(text(cur).decode('utf-8', 'replace')))
        return sorted(seen)

    product = ('base/', 'estimator/', 'kubeobjects/', 'cloudproviders/', 'autoscaler/')
    done = set()
    for e in entries:
        rel = os.path.relpath(os.path.join(e['directory'], e['file']), root)
        if not rel.startswith(product) or not rel.endswith('.cc') or rel in done:
            continue
        done.add(rel)
        h = hashlib.sha256(config)
        # Paths relative to the checkout, so a clean clone elsewhere finds what this one passed.
        command = e.get('command', ' '.join(e.get('arguments', [])))
        h.update(command.replace(os.path.abspath(root), '@ROOT@').encode())
        for dep in closure(rel):
            h.update(dep.encode() + b'\0' + text(dep))
        print(h.hexdigest(), rel)


if __name__ == '__main__':
    main()
