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
#     that fits it and a picture of the hosts it can draw;
#   - the parts a manager reads: the first paragraph (the same layout and
#     best against best, both named, their ratios those of the rows), the
#     latency table (p50 <= p90 <= p99, "met" exactly where the p90s are
#     within --ttft-p90/--tpot-p90), the power and money table (the $/Mtok
#     and watts of `plumb compare --format json`, --price-usd honoured), and
#     the footer (`plumb --version`, SOURCE_DATE_EPOCH's date, the command
#     line as given, escaped), each shown in the browser.
# The checker is tested too: a page that overflows and a page that logs an
# error must fail it. Also: the same inputs give the same bytes, and bad
# input exits with its documented status and leaves no file.
# Without Chromium the script says so and passes, unless
# PLUMB_REQUIRE_CHROMIUM=1 (CI sets it). SHOT_DIR=DIR keeps the screenshots.
# Prints one FAIL: line per failed check, then "N passed, M failed".
set -u
cd "$(dirname "$0")/.."
LC_ALL=C
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1767225600}
export LC_ALL SOURCE_DATE_EPOCH
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
  var lead = document.querySelector('p.lead');
  out.push('lead=' + (lead && lead.getBoundingClientRect().height > 10 &&
                      /^On .* serves /.test(lead.textContent) ? 1 : 0));
  out.push('lat_rows=' + document.querySelectorAll('table.lat tbody tr').length);
  var foot = document.querySelector('footer');
  out.push('footer=' + (foot && foot.getBoundingClientRect().height > 10 &&
                        /Written by plumb .* with plumb report /.test(foot.textContent) ? 1 : 0));
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
		[ "$(value lead)" = 1 ] && ok || bad "$name at $w px: no first paragraph shown"
		[ "$(value footer)" = 1 ] && ok || bad "$name at $w px: no footer with version and command"
		n=$(value lat_rows)
		[ "${n:-0}" -gt 0 ] && ok || bad "$name at $w px: no latency rows shown"
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
if $one -o "$T/hgx.html" && mv "$T/hgx.html" "$T/hgx2.html" && $one -o "$T/hgx.html"; then
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

# The manager's parts, checked against the rows: two boxes, targets, a
# price, a name and an output path that need escaping.
sed 's/^name: .*/name: "hgx <b>\&\\"x\\""/' scenarios/hgx-8x-h200.yaml > "$T/odd.yaml"
two="scenarios/proxmox-vm-8x-rtxpro6000.yaml scenarios/baremetal-8x-rtxpro6000.yaml"
mgr="$T/m&<x>.html"
if $PLUMB report $two --layout tp8,tp4pp2 --concurrency 1,64 --draws 0 \
	--ttft-p90 300 --tpot-p90 60 --price-usd 250000 -o "$mgr" &&
	$PLUMB compare $two --layout tp8,tp4pp2 --concurrency 1,64 --draws 0 \
		--price-usd 250000 --format json -o "$T/cmp.json" &&
	$PLUMB report "$T/odd.yaml" --layout tp8 --concurrency 1 --draws 0 -o "$T/odd.html"; then
	ok
	ver=$($PLUMB --version)
	day=$(date -u -d "@$SOURCE_DATE_EPOCH" '+%Y-%m-%d %H:%M UTC')
	python3 - "$mgr" "$T/cmp.json" "$T/odd.html" "$ver" "$day" "$T" <<'PYEOF' > "$T/mgr.out"
import html, json, re, sys
page, cmp, odd, ver, day, tdir = sys.argv[1:7]
s = open(page, encoding='utf-8').read()
rows = json.load(open(cmp))['rows']
def row(box, lay, x):
    return [r for r in rows if r['scenario'] == box and r['layout'] == lay and r['concurrency'] == x][0]
def best(box, x):
    f = [r for r in rows if r['scenario'] == box and r['concurrency'] == x and r['fits']]
    return max(f, key=lambda r: r['tok_s_total'])
vm, bm = 'proxmox-vm-8x-rtxpro6000', 'baremetal-8x-rtxpro6000'
bad = []
lead = re.search(r'<p class="lead">(.*?)</p>', s, re.S).group(1)
m = re.search(r'serves <b>x([0-9.]+)</b> the tokens/s of <b>' + vm + r'</b> at 1 request with the '
              r'same layout \((\w+) on both\); best against best \((\w+) vs (\w+)\) it is <b>x([0-9.]+)</b>', lead)
if not m:
    bad.append('the first paragraph does not say the same layout and best against best: ' + lead[:200])
else:
    same, lay, lb, la = float(m.group(1)), m.group(2), m.group(3), m.group(4)
    want = row(bm, lay, 1)['tok_s_total'] / row(vm, lay, 1)['tok_s_total']
    if abs(same - want) > 0.006: bad.append('same-layout ratio %g, rows say %g' % (same, want))
    if (lb, la) != (best(bm, 1)['layout'], best(vm, 1)['layout']): bad.append('best layouts named wrong')
    want = best(bm, 1)['tok_s_total'] / best(vm, 1)['tok_s_total']
    if abs(float(m.group(5)) - want) > 0.006: bad.append('best-vs-best ratio %s, rows say %g' % (m.group(5), want))
if 'at 64 requests with the same layout' not in lead or '1024 prompt and 1024 generated' not in lead:
    bad.append('the first paragraph lacks the highest load or the lengths')
lat = re.search(r'<table class="lat">.*?</table>', s, re.S).group(0)
n = 0
for tr in re.findall(r'<tr><td class="l">([^<]*)</td><td>(\d+)</td><td class="l n">(\w+)</td>((?:<td>[0-9.]+</td>){6})<td class="l (ok|miss)">', lat):
    box, x, lay, cells, verdict = tr
    v = [float(c) for c in re.findall(r'[0-9.]+', cells)]
    r = best(box, int(x))
    n += 1
    if lay != r['layout']: bad.append('latency row %s x%s: layout %s, best is %s' % (box, x, lay, r['layout']))
    if not (v[0] <= v[1] <= v[2] and v[3] <= v[4] <= v[5]): bad.append('percentiles out of order: %s' % v)
    pc = r['percentiles_ms']
    if abs(v[1] - pc['ttft']['p90']) > 0.51 or abs(v[4] - pc['tpot']['p90']) > 0.051 * max(1, v[4] / 10):
        bad.append('latency row %s x%s: p90s %g %g, predict says %g %g' % (box, x, v[1], v[4], pc['ttft']['p90'], pc['tpot']['p90']))
    met = pc['ttft']['p90'] <= 300 and pc['tpot']['p90'] <= 60
    if met != (verdict == 'ok'): bad.append('latency row %s x%s: verdict %s, p90s %g %g' % (box, x, verdict, pc['ttft']['p90'], pc['tpot']['p90']))
if n != 4: bad.append('%d latency rows with targets, expected 4' % n)
money = re.search(r'<h2>Power and money</h2>.*?</table>', s, re.S).group(0)
k = 0
for box, x, lay, gw, usd in re.findall(r'<tr><td class="l">([^<]*)</td><td>(\d+)</td><td class="l n">(\w+)</td><td>[0-9]+</td><td>([0-9]+)</td><td>[0-9.]+</td><td>[0-9.]+</td><td>([0-9.]+)</td></tr>', money):
    r = best(box, int(x))
    k += 1
    if abs(float(usd) - r['usd_per_mtok']) > 0.0006 or abs(float(gw) - r['gpu_w']) > 0.6:
        bad.append('money %s x%s: $%s %s W, compare says $%g %g W' % (box, x, usd, gw, r['usd_per_mtok'], r['gpu_w']))
if k != 4: bad.append('%d money rows, expected 4' % k)
if 'price $250000 over' not in s: bad.append('--price-usd not in what the costs assume')
foot = re.search(r'<footer.*?</footer>', s, re.S).group(0)
if 'Written by ' + html.escape(ver, quote=False) + ' on ' + day + ' with' not in foot: bad.append('footer lacks version or date: ' + foot[:160])
if html.escape("-o '" + tdir + "/m&<x>.html'", quote=False) not in foot: bad.append('footer lacks the quoted, escaped -o: ' + foot[-300:])
if '--ttft-p90 300 --tpot-p90 60 --price-usd 250000' not in foot: bad.append('footer lacks the options as given')
o = open(odd, encoding='utf-8').read()
if '<b>&amp;' in o.replace('&lt;b&gt;', '') or 'hgx <b>' in o or 'hgx &lt;b&gt;&amp;&quot;x&quot;' not in o:
    bad.append('a scenario name with markup is not escaped')
if bad: print('\n'.join(bad))
PYEOF
	[ ! -s "$T/mgr.out" ] && ok || { bad "the manager's parts:"; cat "$T/mgr.out"; }
	check manager "$mgr" 5 1280 900
	# another date: the same page but for the date
	cp "$mgr" "$T/day1.html"
	SOURCE_DATE_EPOCH=$((SOURCE_DATE_EPOCH + 86400)) $PLUMB report $two --layout tp8,tp4pp2 \
		--concurrency 1,64 --draws 0 --ttft-p90 300 --tpot-p90 60 --price-usd 250000 -o "$mgr"
	n=$(cmp -l "$mgr" "$T/day1.html" 2> /dev/null | wc -l)
	[ "$n" -ge 1 ] && [ "$n" -le 4 ] && ok || bad "SOURCE_DATE_EPOCH one day later changes $n bytes, not the date's"
else
	bad "plumb report or compare with targets and a price failed"
fi
"$PLUMB" report --ttft-p90 0 -o "$T/t.html" > /dev/null 2>&1
[ $? = 2 ] && [ ! -e "$T/t.html" ] && ok || bad "report --ttft-p90 0: not a usage error (exit 2)"
SOURCE_DATE_EPOCH=soon "$PLUMB" report -o "$T/t.html" > /dev/null 2>&1
[ $? = 2 ] && [ ! -e "$T/t.html" ] && ok || bad "a malformed SOURCE_DATE_EPOCH: not a usage error (exit 2)"

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
