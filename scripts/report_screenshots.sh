#!/usr/bin/env bash
# Renders the main job's report.html in headless Chromium at 1400 px and
# 700 px wide, saves full-page screenshots, and checks the page: no console
# message at all (errors, failed loads, anything logged), every section's
# chart drawn with data, the trace link, the glossary, and the bricks
# table's sorting.
#
#   scripts/report_screenshots.sh                # runs train_tiny (release) first
#   scripts/report_screenshots.sh DIR            # checks DIR/report.html as it is
#   OUT=/tmp/shots scripts/report_screenshots.sh # where the PNGs go
#
# Needs `chromium` (Debian: apt-get install chromium) and python3. Exits 0
# with a message when chromium is missing, 1 when a check fails. The
# screenshots are not committed: look at them.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/target/report-screenshots}
browser=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [[ -z "$browser" ]]; then
    echo "report_screenshots: chromium not found; skipped (apt-get install chromium)"
    exit 0
fi
mkdir -p "$out"

if [[ $# -ge 1 ]]; then
    report_dir=$(cd "$1" && pwd)
else
    report_dir=$out/run
    (cd "$root" && cargo run --quiet --release --example train_tiny -- --out "$report_dir") >"$out/train_tiny.log"
fi
[[ -f "$report_dir/report.html" ]] || { echo "no report.html in $report_dir"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A copy of the page with a check script appended: it records what it
# finds in a data attribute that --dump-dom shows after the scripts ran.
cp "$report_dir"/* "$work"/ 2>/dev/null || true
python3 - "$work/report.html" "$root/scripts/report_check.js" <<'EOF'
import sys
page, check = sys.argv[1], open(sys.argv[2]).read()
html = open(page, encoding="utf-8").read()
html = html.replace("</body>", "<script>\n" + check + "\n</script>\n</body>", 1)
open(page, "w", encoding="utf-8").write(html)
EOF

chrome() {
    local profile
    profile=$(mktemp -d -p "$work")
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
        --user-data-dir="$profile" --enable-logging=stderr --v=0 "$@"
}

status=0
for width in 1400 700; do
    chrome --window-size="$width,1000" --dump-dom "file://$work/report.html" \
        >"$work/dom-$width.html" 2>"$work/log-$width.txt" || true
    if ! python3 "$root/scripts/report_check.py" "$work/dom-$width.html" "$work/log-$width.txt" "$width" >"$work/height-$width"; then
        status=1
    fi
    height=$(cat "$work/height-$width")
    height=${height:-4000}
    chrome --window-size="$width,$height" --screenshot="$out/report-$width.png" \
        "file://$report_dir/report.html" >/dev/null 2>&1 || true
    if [[ -s "$out/report-$width.png" ]]; then
        echo "screenshot: $out/report-$width.png (${width}x$height)"
    else
        echo "FAIL: no screenshot at $width px"
        status=1
    fi
done
exit $status
