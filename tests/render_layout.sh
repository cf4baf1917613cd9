#!/bin/sh
# render_layout.sh - every picture kind on every bundled scenario, its text
# boxes measured: plumb writes each string's ink box as it draws it
# (PLUMB_RENDER_TEXTLOG, render/render.c) and the check below requires
#   - every text inside the page,
#   - no text cut short to fit its room ("..."),
#   - no two texts overlapping (ink boxes meeting by more than 0.5 pt
#     both ways).
# Kinds: topology (and with --path 0:N-1), matrix, bars (VMs), timeline
# (tp over all GPUs, tpNpp2 where there are 4 or more), throughput, fit
# (the validation cases), the topology and matrix of a scenario imported
# from every lspci and topo -m sample in tests/data/import, the topology of
# a 16-box cluster (tests/gen_scale.sh), and the pictures of the seed
# comparison's report (plumb report).
# Prints one FAIL: line per picture with its offending texts, then
# "N passed, M failed".
set -u
cd "$(dirname "$0")/.."
LC_ALL=C
export LC_ALL
PLUMB=${PLUMB:-./plumb}
T=$(mktemp -d "${TMPDIR:-/tmp}/plumb-layout.XXXXXX")
trap 'rm -rf "$T"' EXIT
PLUMB_RENDER_TEXTLOG="$T/text.log"
export PLUMB_RENDER_TEXTLOG
n=0
runfail=0

# draw NAME ARGS...: one picture; a failed run is a failure of its own
draw() {
	name=$1
	shift
	n=$((n + 1))
	if ! "$PLUMB" render "$@" -o "$T/$n-$name.png" > /dev/null 2> "$T/err"; then
		echo "FAIL: plumb render $* exited with an error:"
		head -n 3 "$T/err"
		runfail=$((runfail + 1))
	fi
}

# the first catalog model that fits scenario $1 with layout $2
fitting_model() {
	for m in glm-5 qwen3-235b-a22b llama-3.1-70b mixtral-8x7b; do
		if "$PLUMB" predict "$1" --model "$m" --layout "$2" --batch 1 > /dev/null 2>&1; then
			echo "$m"
			return
		fi
	done
	echo glm-5
}

for f in scenarios/*.yaml; do
	b=$(basename "$f" .yaml)
	g=$(echo "$b" | sed -n 's/^.*-\([0-9][0-9]*\)x-.*$/\1/p')
	[ -n "$g" ] || g=2
	draw "$b-topology" "$f" --what topology
	draw "$b-path" "$f" --what topology --path "0:$((g - 1))"
	draw "$b-matrix" "$f" --what matrix
	case "$b" in *-vm-*) draw "$b-bars" "$f" --what bars ;; esac
	m=$(fitting_model "$f" "tp$g")
	draw "$b-timeline" "$f" --what timeline --model "$m" --layout "tp$g" --batch 8
	if [ "$g" -ge 4 ]; then
		draw "$b-timeline-pp" "$f" --what timeline --model "$m" --layout "tp$((g / 2))pp2" --batch 8
	fi
	draw "$b-throughput" "$f" --what throughput --model "$m" --layout "tp$g" --concurrency 1,8,64
done
S=scenarios
draw seed-throughput $S/proxmox-vm-8x-rtxpro6000.yaml --scenario $S/baremetal-8x-rtxpro6000.yaml \
	--scenario $S/switch-8x-rtxpro6000.yaml --layout tp8,tp4pp2,ep8 --what throughput
draw fit --what fit --cases validation/cases.yaml
for f in tests/data/import/lspci-*.txt tests/data/import/topom-*.txt; do
	b=$(basename "$f" .txt)
	set -- lspci
	# topo -m does not name the GPU: a model as a user would give it
	case "$b" in topom-*) set -- topo-m --gpu-model rtx-pro-6000 ;; esac
	if "$PLUMB" import "$@" "$f" -o "$T/$b.yaml" > /dev/null 2>&1; then
		draw "$b-topology" "$T/$b.yaml" --what topology
		draw "$b-matrix" "$T/$b.yaml" --what matrix
	fi
done

# a cluster past what one picture holds: its first two hosts drawn, the
# other fourteen named in one frame with their NIC ports
sh tests/gen_scale.sh cluster 16 > "$T/cluster16.yaml"
draw cluster16-topology "$T/cluster16.yaml" --what topology
draw cluster16-path "$T/cluster16.yaml" --what topology --path 0:15
if ! grep -q " hosts 2-15: 14 more, not drawn$" "$PLUMB_RENDER_TEXTLOG" ||
   ! grep -q " 112 NIC ports$" "$PLUMB_RENDER_TEXTLOG"; then
	echo "FAIL: cluster16-topology: no frame naming hosts 2-15 and their 112 NIC ports"
	runfail=$((runfail + 1))
fi

# the seed report's six pictures: throughput, the step's parts, the VM's host
# and guest topology, the two bare-metal boxes' topology
if "$PLUMB" report -o "$T/report.html" --draws 0 > /dev/null 2> "$T/err"; then
	n=$((n + 6))
else
	echo "FAIL: plumb report exited with an error:"
	head -n 3 "$T/err"
	runfail=$((runfail + 1))
fi

python3 - "$T/text.log" "$n" "$runfail" <<'EOF'
import sys
log, drawn, runfail = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pages = []
for line in open(log, encoding='utf-8', errors='replace'):
    line = line.rstrip('\n')
    if line.startswith('PAGE '):
        _, w, h, path = line.split(' ', 3)
        pages.append((path, float(w), float(h), []))
    elif line.startswith('TEXT ') and pages:
        _, x0, y0, x1, y1, cut, text = line.split(' ', 6)
        pages[-1][3].append((float(x0), float(y0), float(x1), float(y1), int(cut), text))
passed = failed = 0
for path, w, h, texts in pages:
    bad = []
    for t in texts:
        x0, y0, x1, y1, cut, s = t
        if x0 < -0.5 or y0 < -0.5 or x1 > w + 0.5 or y1 > h + 0.5:
            bad.append('outside the %.0fx%.0f page: "%s" at %.0f,%.0f-%.0f,%.0f' % (w, h, s, x0, y0, x1, y1))
        if cut:
            bad.append('cut to fit: "%s"' % s)
    for i in range(len(texts)):
        a = texts[i]
        for j in range(i + 1, len(texts)):
            b = texts[j]
            if min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5:
                bad.append('"%s" overlaps "%s"' % (a[5], b[5]))
    name = path.rsplit('/', 1)[-1]
    if bad:
        failed += 1
        print('FAIL: %s: %d problems' % (name, len(bad)))
        for b in bad[:6]:
            print('  ' + b)
    else:
        passed += 1
if len(pages) != drawn - runfail:
    print('FAIL: %d pictures drawn, %d logged' % (drawn - runfail, len(pages)))
    failed += 1
failed += runfail
print('render layout: %d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
EOF
