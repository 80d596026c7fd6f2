#!/usr/bin/env python3
"""Reads what report_check.js found (from Chromium's --dump-dom) and the
browser's log: prints the page height for the screenshot, or the problems
and exits 1. Any console message counts as a problem: the page logs
nothing, so a message is an error, a failed load or a warning."""
import html
import json
import re
import sys

dom_path, log_path, width = sys.argv[1], sys.argv[2], sys.argv[3]
dom = open(dom_path, encoding="utf-8", errors="replace").read()
log = open(log_path, encoding="utf-8", errors="replace").read()

problems = []
console = [line for line in log.splitlines() if ":CONSOLE" in line]
problems += ["console: " + line.split("] ", 1)[-1] for line in console]
match = re.search(r'data-selfcheck="([^"]*)"', dom)
if not match:
    problems.append("the check script did not run (no data-selfcheck in the DOM)")
    height = 0
else:
    result = json.loads(html.unescape(match.group(1)))
    problems += result["problems"]
    height = int(result["height"])

# The height goes out either way: a failed page is still worth a look.
print(max(height, 600))
if problems:
    for p in problems:
        print(f"FAIL at {width} px: {p}", file=sys.stderr)
    sys.exit(1)
print(f"ok at {width} px: no console messages, every check passed", file=sys.stderr)
