#!/bin/sh
# report_browser.sh - `plumb report`'s page in a real browser: headless
# Chromium loads it and a small script added to a copy of the page writes
# into the DOM what it measured (read back with --dump-dom):
#   - no console message at all (errors, failed loads, warnings), and the
#     script's own message arrives, so the console is really read;
#   - every figure is an inline SVG that lays out larger than 100x50 and
#     holds drawn paths;
#   - no element's content is wider than its box and the page is no wider
#     than the window, at 1280 and at 900 pixels;
#   - a screenshot is far from blank (its PNG many times a blank page's);
#   - the seed comparison's page is under 2 MB and needs nothing but itself
#     (no http:, https: or external file reference);
#   - a 9-host cluster (tests/gen_scale.sh) gets its page, with a layout
#     that fits it and a picture of the hosts it can draw.
# The checker is tested too: a page that overflows and a page that logs an
# error must fail it. Also: the same inputs give the same bytes, and bad
# input exits with its documented status and leaves no file.
# Without Chromium the script says so and passes, unless
# PLUMB_REQUIRE_CHROMIUM=1 (CI sets it). SHOT_DIR=DIR keeps the screenshots.
# Prints one FAIL: line per failed check, then "N passed, M failed".
set -u
cd "$(dirname "$0")/.."
LC_ALL=C
export LC_ALL
PLUMB=${PLUMB:-./plumb}
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
DRAWS=${REPORT_DRAWS:-8}

if [ -z "$CHROMIUM" ]; then
	if [ "${PLUMB_REQUIRE_CHROMIUM:-0}" = 1 ]; then
		echo "FAIL: chromium is not installed (sh scripts/install-deps.sh installs it)"
		echo "0 passed, 1 failed"
		exit 1
	fi
	echo "report_browser: skipped: chromium is not installed (sh scripts/install-deps.sh installs it)"
	exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/plumb-browser.XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
	echo "FAIL: $*"
	fail=$((fail + 1))
}

# The checker added before </body> of a copy of the page.
cat > "$T/check.js" <<'EOF'
<script>
(function () {
  var out = [], over = [], small = 0;
  var svgs = document.querySelectorAll('svg');
  svgs.forEach(function (s) {
    var r = s.getBoundingClientRect();
    if (!(r.width > 100 && r.height > 50 && s.querySelectorAll('path,use').length > 10))
      small++;
  });
  document.querySelectorAll('body *').forEach(function (e) {
    if (e.closest('svg') || e.clientWidth === 0)
      return;
    if (e.scrollWidth > e.clientWidth + 1)
      over.push(e.tagName + ' ' + e.scrollWidth + '>' + e.clientWidth + ' "' +
                e.textContent.slice(0, 40) + '"');
  });
  out.push('svgs=' + svgs.length);
  out.push('small_svgs=' + small);
  out.push('page_wider=' + (document.documentElement.scrollWidth > window.innerWidth ? 1 : 0));
  out.push('overflow=' + over.length);
  over.slice(0, 5).forEach(function (o) { out.push('  ' + o); });
  var d = document.createElement('pre');
  d.id = 'plumb-check';
  d.textContent = out.join('\n');
  document.body.appendChild(d);
  console.log('plumb-report-check done');
})();
</script>
EOF

# browse PAGE WIDTH: the checked copy's DOM in $T/dom, the log in $T/log
browse() {
	python3 - "$1" "$T/check.js" "$T/checked.html" <<'EOF'
import sys
page = open(sys.argv[1], encoding='utf-8').read()
check = open(sys.argv[2], encoding='utf-8').read()
i = page.rfind('</body>')
open(sys.argv[3], 'w', encoding='utf-8').write(page[:i] + check + page[i:] if i >= 0 else page + check)
EOF
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
		--user-data-dir="$T/profile" --window-size="$2",2000 --dump-dom \
		"file://$T/checked.html" > "$T/dom" 2> "$T/log"
}

# value KEY: KEY=VALUE from the checker's output in $T/dom
value() {
	sed -n '/<pre id="plumb-check">/,$p' "$T/dom" | sed 's/^.*<pre id="plumb-check">//' |
		sed -n "s/^$1=\([0-9][0-9]*\).*$/\1/p" | head -n 1
}

# check NAME PAGE SVGS WIDTH...: load PAGE at each width, expect SVGS figures
check() {
	name=$1
	page=$2
	nsvg=$3
	shift 3
	for w in "$@"; do
		browse "$page" "$w"
		if ! grep -q '"plumb-report-check done"' "$T/log"; then
			bad "$name at $w px: the checker's console message never arrived (console not read?)"
			sed -n '1,5p' "$T/log"
			continue
		fi
		msgs=$(grep 'CONSOLE' "$T/log" | grep -v '"plumb-report-check done"')
		if [ -n "$msgs" ]; then
			bad "$name at $w px: console messages:"
			echo "$msgs" | head -n 5
		else
			ok
		fi
		n=$(value svgs)
		[ "$n" = "$nsvg" ] && ok || bad "$name at $w px: $n figures, expected $nsvg"
		n=$(value small_svgs)
		[ "$n" = 0 ] && ok || bad "$name at $w px: $n figures are empty or smaller than 100x50"
		n=$(value overflow)
		if [ "$n" = 0 ]; then
			ok
		else
			bad "$name at $w px: $n elements overflow their box:"
			sed -n '/<pre id="plumb-check">/,$p' "$T/dom" | sed -n '/^  [A-Z]/p' | head -n 5
		fi
		n=$(value page_wider)
		[ "$n" = 0 ] && ok || bad "$name at $w px: the page is wider than the window"
	done
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$T/profile" \
		--window-size=1280,2400 --screenshot="$T/$name.png" "file://$page" > /dev/null 2>&1
	s=$(wc -c < "$T/$name.png" 2> /dev/null || echo 0)
	if [ "$s" -gt $((blank * 10)) ]; then
		ok
	else
		bad "$name: the screenshot looks blank ($s bytes; a blank page's: $blank)"
	fi
	if [ -n "${SHOT_DIR:-}" ]; then
		cp "$T/$name.png" "$SHOT_DIR/$name.png"
	fi
	if grep -Eq '(src|href)="(https?:|file:|//)' "$page"; then
		bad "$name: the page refers to something outside itself"
		grep -Eo '(src|href)="(https?:|file:|//)[^"]*"' "$page" | head -n 3
	else
		ok
	fi
}

# a blank page's screenshot, the measure of "blank"
printf '<!DOCTYPE html>\n<html><body></body></html>\n' > "$T/blank.html"
"$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$T/profile" \
	--window-size=1280,2400 --screenshot="$T/blank.png" "file://$T/blank.html" > /dev/null 2>&1
blank=$(wc -c < "$T/blank.png" 2> /dev/null || echo 0)
[ "$blank" -gt 0 ] && ok || bad "no screenshot of a blank page: $CHROMIUM does not take screenshots"

# The checker fails what it should: overflowing text, a console error.
printf '<!DOCTYPE html>\n<html><body><p style="width:80px;overflow:hidden;white-space:nowrap">%s</p>%s</body></html>\n' \
	"this line is much wider than eighty pixels" '<script>console.error("broken");</script>' > "$T/bad.html"
browse "$T/bad.html" 1280
[ "$(value overflow)" = 1 ] && ok || bad "the checker misses overflowing text"
grep 'CONSOLE' "$T/log" | grep -q '"broken"' && ok || bad "the checker misses a console error"

# The seed comparison (bare `plumb`): the chart, the step's parts, VM host and guest, two
# bare-metal boxes.
if "$PLUMB" report -o "$T/seed.html" --draws "$DRAWS"; then
	ok
	s=$(wc -c < "$T/seed.html")
	[ "$s" -lt 2097152 ] && ok || bad "the seed report is $s bytes, not under 2 MB"
	check seed "$T/seed.html" 6 1280 900
	# the answer's speed-ups carry their paired range, which holds the speed-up
	python3 - "$T/seed.html" <<'PYEOF' && ok || bad "the answer's speed-ups lack a range that holds them"
import re, sys
page = open(sys.argv[1], encoding='utf-8').read()
found = re.findall(r'x([0-9.]+)</b> \(90%: x([0-9.]+)&ndash;([0-9.]+)\)', page)
sys.exit(0 if found and all(float(lo) <= float(x) <= float(hi) for x, lo, hi in found) else 1)
PYEOF
else
	bad "plumb report (the seed comparison) exited $?"
fi

# One box (predict's rows), with the range of the defaults; twice: same bytes.
one="$PLUMB report scenarios/hgx-8x-h200.yaml --layout tp8,ep8 --concurrency 1,8,64 --draws 4"
if $one -o "$T/hgx.html" && $one -o "$T/hgx2.html"; then
	ok
	cmp -s "$T/hgx.html" "$T/hgx2.html" && ok || bad "two runs of one report differ"
	check hgx "$T/hgx.html" 3 1280
else
	bad "plumb report on one box failed"
fi

# A cluster of 9 hosts (72 GPUs; its topology picture draws the first
# hosts only, and tp72 does not divide GLM-5's heads): the page is made,
# with the default layouts and a copy per host (dp9tp8) that fits, and the
# highlighted transfer among the GPUs drawn.
sh tests/gen_scale.sh cluster 9 > "$T/c9.yaml"
if "$PLUMB" report "$T/c9.yaml" --concurrency 1,64 --draws 0 -o "$T/c9.html"; then
	ok
	grep -q '<td class="l n">dp9tp8</td><td>64</td><td>[0-9]' "$T/c9.html" && ok ||
		bad "the 9-host report has no dp9tp8 row that fits"
	grep -q '<td class="l n">tp72</td><td>1</td><td>does not fit</td>' "$T/c9.html" && ok ||
		bad "the 9-host report lost predict's default layout (tp72, does not fit)"
	grep -q 'a transfer from GPU0 to GPU15,.*GPUs 0&ndash;15 of 72' "$T/c9.html" && ok ||
		bad "the 9-host report does not say which GPUs its picture draws"
	check cluster9 "$T/c9.html" 3 1280
else
	bad "plumb report on a 9-host cluster exited $?"
fi

# Bad input: documented status, no page left behind, an old page kept.
"$PLUMB" report -o "$T/x.png" > /dev/null 2> "$T/err"
[ $? = 2 ] && ok || bad "report -o x.png: not a usage error (exit 2)"
"$PLUMB" report "$T/missing.yaml" -o "$T/m.html" > /dev/null 2> "$T/err"
st=$?
[ $st = 4 ] && ok || bad "report of a missing scenario: exit $st, expected 4"
[ ! -e "$T/m.html" ] && ok || bad "a failed report left a page behind"
echo "old" > "$T/keep.html"
"$PLUMB" report scenarios/hgx-8x-h200.yaml --layout tp3 -o "$T/keep.html" > /dev/null 2>&1
[ "$(cat "$T/keep.html")" = old ] && ok || bad "a failed report changed the existing page"
ls "$T" | grep -q '\.tmp\.' && bad "a temporary file was left beside the page" || ok

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
